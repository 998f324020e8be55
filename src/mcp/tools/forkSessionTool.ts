// fork_session: a new session that starts from a checkpoint (or the current state) of another and goes its own way.
import { z } from 'zod';
import { checkpointIdArgument, idempotencyKeyArgument, ledgerTool, sessionIdArgument } from '../ledgerTool.js';

export const forkSessionTool = ledgerTool({
  name: 'fork_session',
  title: 'Fork a session',
  description:
    'Starts a new session from a checkpoint of an existing one (or from its current state when checkpointId is left out): the fork has the same history up to there and its own future; the original is unchanged. ' +
    'Use it to try an alternative without losing the original line, or to branch a conversation. ' +
    "Answers {sessionId (the fork's), parentSessionId, forkOf {sessionId, checkpointId, revision}, turnIndex}. At most 1,000 characters.",
  scope: 'write',
  maxChars: 1_000,
  input: z.strictObject({
    sessionId: sessionIdArgument.describe('The session to fork.'),
    checkpointId: checkpointIdArgument.optional().describe('The checkpoint to fork from (show_session lists them). Left out: the current state.'),
    agentName: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, '1-64 of A-Z a-z 0-9 _ . : -')
      .optional()
      .describe('A name for the agent that will work in the fork, e.g. "experiment-b".'),
    idempotencyKey: idempotencyKeyArgument,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(client, args) {
    const fork = await client.forkSession(
      args.sessionId,
      { checkpointId: args.checkpointId, agentName: args.agentName },
      { idempotencyKey: args.idempotencyKey },
    );
    return { sessionId: fork.sessionId, parentSessionId: fork.parentSessionId, forkOf: fork.forkOf, turnIndex: fork.turnIndex };
  },
});
