// The live transcript as a provider-neutral history in which every tool call has its result: the step every format
// shares. Results move next to their call, an orphaned call gets a synthetic result, a result with no call is dropped.
import type { DroppedMessage, SyntheticToolResult } from '../../../client/contextWindowApiTypes.js';
import type { JsonValue } from '../../../events/eventStore.js';
import type { StoredMessage } from '../../../events/session/sessionMessages.js';
import { type ContentPart, contentParts, joinedText, textOnly } from './messageContent.js';

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text, as OpenAI's function calls carry it. */
  arguments: string;
}

export type WindowEntry =
  | { kind: 'system'; index: number; parts: ContentPart[] }
  | { kind: 'user'; index: number; parts: ContentPart[]; name?: string }
  | { kind: 'assistant'; index: number; parts: ContentPart[]; name?: string; toolCalls: ToolCall[] }
  /** `index` is null for a synthetic result: no stored message holds it. */
  | { kind: 'toolResult'; index: number | null; call: ToolCall; text: string; synthetic: boolean };

/** What the cut keeps or removes whole: a system message, a user message, or an assistant message with its tool results. */
export interface WindowUnit {
  entries: WindowEntry[];
}

export interface PairedHistory {
  units: WindowUnit[];
  synthetic: SyntheticToolResult[];
  dropped: DroppedMessage[];
}

export const INTERRUPTED_RESULT = 'The tool call was interrupted before it returned a result: no result was recorded.';

type JsonRecord = { [key: string]: JsonValue };
const isRecord = (value: JsonValue | undefined): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** OpenAI's `{id, type: 'function', function: {name, arguments}}`, or the flat `{id, name, arguments}`; anything else is not a call. */
function toolCallOf(raw: JsonValue): ToolCall | undefined {
  if (!isRecord(raw) || typeof raw.id !== 'string' || raw.id.length === 0) return undefined;
  const fn = isRecord(raw.function) ? raw.function : raw;
  if (typeof fn.name !== 'string' || fn.name.length === 0) return undefined;
  const args = fn.arguments ?? fn.input ?? {};
  return { id: raw.id, name: fn.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

function assistantCalls(message: StoredMessage, dropped: DroppedMessage[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const raw of message.toolCalls ?? []) {
    const call = toolCallOf(raw);
    const rawId = isRecord(raw) && typeof raw.id === 'string' ? raw.id : null;
    if (!call) dropped.push({ messageIndex: message.index, toolCallId: rawId, reason: 'malformed_tool_call' });
    else if (calls.some((known) => known.id === call.id)) dropped.push({ messageIndex: message.index, toolCallId: call.id, reason: 'duplicate_tool_call_id' });
    else calls.push(call);
  }
  return calls;
}

/** The history of `messages` (the live transcript, oldest first) with every call answered. The stored messages are not changed. */
export function pairedHistory(messages: readonly StoredMessage[]): PairedHistory {
  const units: WindowUnit[] = [];
  const synthetic: SyntheticToolResult[] = [];
  const dropped: DroppedMessage[] = [];
  const claimed = new Set<number>();
  // Each tool call id's results, oldest first: a call takes the first one recorded after it.
  const resultsById = new Map<string, number[]>();
  messages.forEach((message, position) => {
    if (message.role !== 'tool' || message.toolCallId === undefined) return;
    const positions = resultsById.get(message.toolCallId) ?? [];
    positions.push(position);
    resultsById.set(message.toolCallId, positions);
  });
  const empty = (message: StoredMessage) => dropped.push({ messageIndex: message.index, toolCallId: null, reason: 'empty_message' });

  messages.forEach((message, position) => {
    if (claimed.has(position)) return;
    const parts = contentParts(message.content);
    const name = message.name === undefined ? {} : { name: message.name };
    switch (message.role) {
      case 'system':
        if (parts.length === 0) empty(message);
        else units.push({ entries: [{ kind: 'system', index: message.index, parts: textOnly(parts) }] });
        return;
      case 'user':
        if (parts.length === 0) empty(message);
        else units.push({ entries: [{ kind: 'user', index: message.index, parts, ...name }] });
        return;
      case 'tool':
        // Not claimed by a call before it: its call is missing (or it answers one already answered).
        dropped.push({
          messageIndex: message.index,
          toolCallId: message.toolCallId ?? null,
          reason: message.toolCallId === undefined ? 'missing_tool_call_id' : 'no_matching_call',
        });
        return;
      case 'assistant': {
        const toolCalls = assistantCalls(message, dropped);
        if (parts.length === 0 && toolCalls.length === 0) {
          empty(message);
          return;
        }
        const entries: WindowEntry[] = [{ kind: 'assistant', index: message.index, parts: textOnly(parts), toolCalls, ...name }];
        for (const call of toolCalls) {
          // A result recorded later (after a user message, in another turn) moves next to its call: providers want it there.
          const candidates = resultsById.get(call.id) ?? [];
          while (candidates.length > 0 && candidates[0]! < position) candidates.shift();
          const at = candidates.shift();
          if (at === undefined) {
            entries.push({ kind: 'toolResult', index: null, call, text: INTERRUPTED_RESULT, synthetic: true });
            synthetic.push({ toolCallId: call.id, reason: 'interrupted' });
          } else {
            claimed.add(at);
            const result = messages[at]!;
            entries.push({ kind: 'toolResult', index: result.index, call, text: joinedText(contentParts(result.content)), synthetic: false });
          }
        }
        units.push({ entries });
        return;
      }
      default: {
        const unknownRole: never = message.role;
        throw new Error(`unknown role ${String(unknownRole)}`);
      }
    }
  });
  return { units, synthetic, dropped };
}
