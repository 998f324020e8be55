// What of a key-value state's events an erasure keeps: that it changed, and when. Keys and values are the person's.
import type { AgentStateEvent } from '../../../events/agentState/agentStateEvents.js';
import { optional } from './optionalField.js';
import type { Redactors } from './redactors.js';

export const agentStateRedactors: Redactors<AgentStateEvent> = {
  AgentStateChanged: (data, context) => ({
    ownerKey: context.pseudonymousKey,
    ...optional('namespace', data.namespace),
    // A shared state's id may name the person (ADK's `user:` state is named by the user's id).
    ...(data.stateId === undefined ? {} : { stateId: context.pseudonym(data.stateId) }),
    ...optional('sessionId', data.sessionId),
    delta: {},
    at: data.at,
  }),
};
