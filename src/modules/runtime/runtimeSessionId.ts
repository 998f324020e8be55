// Runtime session ids: `rt_<16 hex>`, made here because the orchestrator (not the worker) names its runtime sessions.
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../errors/ledgerError.js';
import { currentIdempotentWrite } from '../../events/idempotentWrite.js';

const RUNTIME_SESSION_ID = /^rt_[0-9a-f]{16}$/;

export function newRuntimeSessionId(): string {
  return `rt_${currentIdempotentWrite()?.chosenHex('runtime-session-id', 16) ?? randomBytes(8).toString('hex')}`;
}

export function validRuntimeSessionId(id: string): string {
  if (!RUNTIME_SESSION_ID.test(id))
    throw new ValidationError('a runtime session id is rt_ and 16 lowercase hex digits', { runtimeSessionId: id }, 'INVALID_RUNTIME_SESSION_ID');
  return id;
}
