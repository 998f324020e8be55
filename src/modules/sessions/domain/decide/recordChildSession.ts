// RecordChildSession: the parent's record of a child or fork it spawned; recorded even on a parent destroyed
// meanwhile (the child exists either way, as an orphan).
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { requireExisting } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface RecordChildSession {
  type: 'RecordChildSession';
  childSessionId: string;
  kind: 'child' | 'fork';
  agentName: string | null;
  forkOf?: { checkpointId: string | null; revision: number };
  now: string;
}

export function decideRecordChildSession(command: RecordChildSession, state: SessionState): SessionStreamEvent[] {
  requireExisting(state);
  const { type: _type, now, ...data } = command;
  return [{ type: 'ChildSessionCreated', data: { ...data, at: now } }];
}
