// create_checkpoint: a named point in a session's timeline to roll back or fork from later.
import { z } from 'zod';
import { idempotencyKeyArgument, ledgerTool, sessionIdArgument } from '../ledgerTool.js';

export const createCheckpointTool = ledgerTool({
  name: 'create_checkpoint',
  title: 'Create a checkpoint',
  description:
    "Marks the session's current state (transcript, item history, memory, counters) as a checkpoint with a label, so that rollback_session can return to it or fork_session can start a new session from it. " +
    'Use it before a risky step (a large refactor, an experiment) or at a state worth keeping. Nothing else changes. ' +
    'Answers {checkpointId, label, sessionId, revision}. At most 1,000 characters.',
  scope: 'write',
  maxChars: 1_000,
  input: z.strictObject({
    sessionId: sessionIdArgument,
    label: z.string().trim().min(1).max(200).describe('What this state is, in a few words, e.g. "before the schema migration".'),
    idempotencyKey: idempotencyKeyArgument,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(client, args) {
    const created = await client.createCheckpoint(args.sessionId, { label: args.label }, { idempotencyKey: args.idempotencyKey });
    return { checkpointId: created.checkpointId, label: args.label, sessionId: args.sessionId, revision: created.revision };
  },
});
