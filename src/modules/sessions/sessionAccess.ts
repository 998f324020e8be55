// What every session route reading a session needs: its folded state, or SESSION_NOT_FOUND.
import type { Request } from '../../http/httpTypes.js';
import { requestTenant } from '../../http/auth.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import type { LoadedState } from '../../events/streamStateStore.js';
import type { CommandContext } from '../commandContext.js';
import { sessionDecider, sessionNotFound } from './domain/sessionDecider.js';
import type { ExistingSession } from './domain/sessionState.js';
import { validSessionId } from './sessionRequests.js';

/** The current state, or SESSION_NOT_FOUND. */
export async function loadSession(commandContext: CommandContext, id: string, request: Request): Promise<LoadedState<ExistingSession>> {
  const loaded = await commandContext.streams.load(sessionStreamName(validSessionId(id), requestTenant(request)), sessionDecider);
  const { state } = loaded;
  if (state.status === 'absent') throw sessionNotFound(id);
  return { ...loaded, state };
}
