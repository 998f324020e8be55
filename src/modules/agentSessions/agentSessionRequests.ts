// Request schemas of the agent-session and item routes, and the checks of path parameters and items.
import { z } from 'zod';
import { LedgerError, ValidationError } from '../../errors/ledgerError.js';
import type { JsonObject } from '../../events/eventStore.js';
import type { SessionLimits } from '../../config/config.js';
import { isJsonValue, jsonObject } from '../../http/jsonValues.js';
import { isStorableInstant } from '../../http/storableTimestamp.js';
import { isStorableText } from '../../http/unsupportedCharacters.js';

const agentName = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, '1-64 of A-Z a-z 0-9 _ . : -');

export const agentSessionRequestSchema = z.strictObject({ agentName: agentName.nullable().default(null), metadata: jsonObject.default({}) });

const instant = z.iso.datetime({ offset: true }).refine((text) => isStorableInstant(new Date(text)), 'a time the database can store');

export const listAgentSessionsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(2_000).optional(),
  /** Only sessions whose item history or lifecycle changed at or after this time. */
  updatedAfter: instant.optional(),
  /** Only sessions last changed before this time. */
  updatedBefore: instant.optional(),
  /** A JSON object: only sessions whose metadata contains it (every key with an equal value). */
  metadata: z.string().max(4_000).optional(),
  minPosition: z.string().optional(),
});

export const deleteAgentSessionQuerySchema = z.strictObject({
  cascade: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});

export const appendItemsRequestSchema = z.strictObject({
  // Each one is checked to be a JSON object in the route (400 ITEM_NOT_OBJECT names it); MAX_MESSAGES_PER_TURN counts them.
  items: z.array(z.unknown()).min(1).max(100_000),
  /** The member of each item that holds its id (`uuid` for Claude Code entries); null: no item has one. */
  idField: z
    .string()
    .regex(/^[A-Za-z0-9_.$-]{1,64}$/)
    .nullable()
    .default('id'),
});

export const itemsQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(1_000).default(100),
    /** An item's id: the items before it (older), the newest of them first in the page's order. */
    before: z.string().min(1).max(512).optional(),
    /** An item's id: the items after it (newer), the oldest of them first. */
    after: z.string().min(1).max(512).optional(),
    /** The history as it was at this revision of the session's stream (time travel); now when absent. */
    revision: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .refine((query) => query.before === undefined || query.after === undefined, 'give before or after, not both');

export function validNamespace(namespace: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(namespace)) throw new ValidationError('a namespace is 1-64 of A-Z a-z 0-9 _ . -', { namespace }, 'INVALID_NAMESPACE');
  return namespace;
}

export function validExternalId(externalId: string): string {
  if (externalId.length < 1 || externalId.length > 512 || !isStorableText(externalId) || /[\u0000-\u001f\u007f]/.test(externalId))
    throw new ValidationError('an external id is 1-512 characters, no control characters', { externalId }, 'INVALID_EXTERNAL_ID');
  return externalId;
}

/** The metadata filter: a JSON object given as text. */
export function metadataFilter(text: string | undefined): JsonObject | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const parsedObject = jsonObject.safeParse(parsed);
  if (!parsedObject.success) throw new ValidationError('metadata is a JSON object, URL-encoded', { metadata: text }, 'INVALID_METADATA_FILTER');
  return parsedObject.data;
}

/**
 * The items as objects, each with its id (the `idField` member when it is a string) or null; refused whole, before
 * anything is read or written: 400 for an item that is not an object or an id that is not one, 413 past the limits.
 */
export function validItems(items: readonly unknown[], idField: string | null, limits: SessionLimits): { items: JsonObject[]; itemIds: Array<string | null> } {
  if (items.length > limits.messagesPerTurn) {
    throw new LedgerError('TOO_MANY_ITEMS', `an append holds at most ${limits.messagesPerTurn} items; this one has ${items.length}`, 413, {
      count: items.length,
      limit: limits.messagesPerTurn,
    });
  }
  const itemIds = items.map((item, index) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || !isJsonValue(item))
      throw new ValidationError(`item ${index} is not a JSON object`, { index }, 'ITEM_NOT_OBJECT');
    const bytes = Buffer.byteLength(JSON.stringify(item), 'utf8');
    if (bytes > limits.messageBytes) {
      throw new LedgerError('ITEM_TOO_LARGE', `item ${index} is ${bytes} bytes as JSON; the limit is ${limits.messageBytes}`, 413, {
        index,
        bytes,
        limit: limits.messageBytes,
      });
    }
    const id = idField === null ? undefined : (item as Record<string, unknown>)[idField];
    if (id === undefined || id === null) return null;
    if (typeof id !== 'string' || id.length < 1 || id.length > 512 || !isStorableText(id))
      throw new ValidationError(`item ${index}'s ${idField} is not an id: a string of 1-512 characters`, { index }, 'INVALID_ITEM_ID');
    return id;
  });
  return { items: items as JsonObject[], itemIds };
}
