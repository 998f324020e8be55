// How LangGraph's checkpoints, channel values and pending writes are items of a ledger session's history: ids and shapes.
import type { JsonObject } from '../../client/ledgerApiTypes.js';

/** A value as the saver's serializer wrote it: its type and its bytes (base64), so it comes back byte for byte. */
export interface SerializedValue extends JsonObject {
  type: string;
  data: string;
}

export interface CheckpointItem extends JsonObject {
  id: string;
  type: 'langgraph.checkpoint';
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
  parentCheckpointId: string | null;
  /** The checkpoint without its channel values, which are channel items of their own (stored once per version). */
  checkpoint: SerializedValue;
  metadata: SerializedValue;
  /** Readable copies for the ledger's views: where the checkpoint came from, its step, the channels it wrote. */
  source: string | null;
  step: number | null;
  wroteChannels: string[];
  /**
   * The index of the first of this checkpoint's writes stored before it, when some were: LangGraph does not wait for a
   * checkpoint's put before it puts the writes of its tasks, so a write can reach the ledger first. Null, or absent
   * from a checkpoint stored before this field was, when none was.
   */
  writesFrom: number | null;
}

export interface ChannelItem extends JsonObject {
  id: string;
  type: 'langgraph.channel';
  checkpointNs: string;
  channel: string;
  version: string;
  /** null: the channel was emptied at this version. */
  value: SerializedValue | null;
  /** A value too large for one item continues in this many part items (`<id>/part/<n>`, from 1). */
  parts: number;
}

export interface ChannelPartItem extends JsonObject {
  id: string;
  type: 'langgraph.channel-part';
  data: string;
}

export interface WriteItem extends JsonObject {
  type: 'langgraph.write';
  checkpointNs: string;
  checkpointId: string;
  taskId: string;
  taskPath: string;
  /** The write's index in its call, or LangGraph's negative index of a special write (error, interrupt, resume…). */
  idx: number;
  channel: string;
  value: SerializedValue;
}

const part = (text: string) => encodeURIComponent(text);

export const checkpointItemId = (ns: string, checkpointId: string) => `checkpoint/${part(ns)}/${part(checkpointId)}`;
/** Appended with a namespace's first checkpoint: a namespace with none is known at one look-up, without a walk. */
export const namespaceItemId = (ns: string) => `namespace/${part(ns)}`;
export const channelItemId = (ns: string, channel: string, version: string | number) => `channel/${part(ns)}/${part(channel)}/${part(String(version))}`;
export const channelPartItemId = (channelItem: string, index: number) => `${channelItem}/part/${index}`;
/**
 * A regular write's id: one per task and index, so storing it again writes nothing (the first stays, as LangGraph's
 * PostgresSaver keeps it). Special writes (negative index) have no id: each is new, and the newest counts.
 */
export const writeItemId = (ns: string, checkpointId: string, taskId: string, idx: number) => `write/${part(ns)}/${part(checkpointId)}/${part(taskId)}/${idx}`;

export function encodeValue([type, bytes]: [string, Uint8Array]): SerializedValue {
  return { type, data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
}

export function decodeValue(value: SerializedValue): Uint8Array {
  return new Uint8Array(Buffer.from(value.data, 'base64'));
}

export function isItemOfType<Item extends JsonObject>(item: JsonObject, type: Item['type']): item is Item {
  return item['type'] === type;
}

/** Thread-wide: a message stays in its channel for the rest of the thread, and its copy is stored once. */
export const messageItemId = (messageId: string) => `message/${part(messageId)}`;

/** Base64 characters per item of a channel value: a part stays well under the ledger's MAX_MESSAGE_BYTES (256 KiB). */
const PART_CHARS = 192 * 1024;

/** A channel's value at a version as items: the channel item, then the parts of a value too large for one item. */
export function channelItems(ns: string, channel: string, version: string | number, value: SerializedValue | null): [ChannelItem, ...ChannelPartItem[]] {
  const id = channelItemId(ns, channel, version);
  const chunks =
    value === null
      ? []
      : Array.from({ length: Math.ceil(value.data.length / PART_CHARS) }, (_, at) => value.data.slice(at * PART_CHARS, (at + 1) * PART_CHARS));
  const head: ChannelItem = {
    id,
    type: 'langgraph.channel',
    checkpointNs: ns,
    channel,
    version: String(version),
    value: value === null ? null : { type: value.type, data: chunks[0] ?? '' },
    parts: Math.max(0, chunks.length - 1),
  };
  return [head, ...chunks.slice(1).map((data, at): ChannelPartItem => ({ id: channelPartItemId(id, at + 1), type: 'langgraph.channel-part', data }))];
}
