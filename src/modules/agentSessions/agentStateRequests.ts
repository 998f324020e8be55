// Request schemas and checks of key-value states: a delta, a shared state's id, the deltas an item append carries.
import { z } from 'zod';
import type { SessionLimits } from '../../config/config.js';
import { LedgerError, ValidationError } from '../../errors/ledgerError.js';
import type { JsonObject } from '../../events/eventStore.js';
import { jsonObject } from '../../http/jsonValues.js';
import { isStorableText } from '../../http/unsupportedCharacters.js';
import { appendItemsRequestSchema, validNamespace } from './agentSessionRequests.js';
import type { SharedStateDelta, StateDeltas } from './commands/stateChanges.js';

/** Shared states one append may change besides the session's own. */
const MAX_SHARED_STATES = 16;

const sharedStateDeltaSchema = z.strictObject({ namespace: z.string(), stateId: z.string(), delta: jsonObject });

export const stateDeltaFields = {
  /** The session's own state: each key takes its value. */
  stateDelta: jsonObject.optional(),
  /** Shared states (by namespace and id), each changed by its delta in the same append. */
  sharedStateDeltas: z.array(sharedStateDeltaSchema).max(MAX_SHARED_STATES).default([]),
};

/** An item append, with the state deltas it may carry (docs/agent-sessions.md). */
export const appendItemsWithStatesSchema = appendItemsRequestSchema.extend(stateDeltaFields);

export const changeStateRequestSchema = z.strictObject({ delta: jsonObject });

/** A session's values, and shared states changed in the same append. */
export const changeValuesRequestSchema = z.strictObject({ delta: jsonObject, sharedStateDeltas: stateDeltaFields.sharedStateDeltas });

export function validStateId(stateId: string): string {
  if (stateId.length < 1 || stateId.length > 512 || !isStorableText(stateId) || /[\u0000-\u001f\u007f]/.test(stateId))
    throw new ValidationError('a state id is 1-512 characters, no control characters', { stateId }, 'INVALID_STATE_ID');
  return stateId;
}

/** A delta no larger than one message (MAX_MESSAGE_BYTES as UTF-8 JSON): a state grows by what its writes carry. */
export function validDelta(delta: JsonObject, limits: SessionLimits, field: string): JsonObject {
  const bytes = Buffer.byteLength(JSON.stringify(delta), 'utf8');
  if (bytes > limits.messageBytes)
    throw new LedgerError('STATE_DELTA_TOO_LARGE', `${field} is ${bytes} bytes as JSON; the limit is ${limits.messageBytes}`, 413, {
      field,
      bytes,
      limit: limits.messageBytes,
    });
  return delta;
}

/** The deltas of an item append, checked whole before anything is read or written. */
export function validStateDeltas(
  body: { stateDelta?: JsonObject | undefined; sharedStateDeltas: Array<{ namespace: string; stateId: string; delta: JsonObject }> },
  limits: SessionLimits,
): StateDeltas {
  const shared: SharedStateDelta[] = body.sharedStateDeltas.map(({ namespace, stateId, delta }, index) => ({
    namespace: validNamespace(namespace),
    stateId: validStateId(stateId),
    delta: validDelta(delta, limits, `sharedStateDeltas[${index}].delta`),
  }));
  return { ...(body.stateDelta === undefined ? {} : { session: validDelta(body.stateDelta, limits, 'stateDelta') }), shared };
}
