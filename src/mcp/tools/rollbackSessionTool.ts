// rollback_session: the session's state becomes a checkpoint's again; the timeline left stays in the log.
import { z } from 'zod';
import { checkpointIdArgument, idempotencyKeyArgument, ledgerTool, sessionIdArgument } from '../ledgerTool.js';

export const rollbackSessionTool = ledgerTool({
  name: 'rollback_session',
  title: 'Roll a session back to a checkpoint',
  description:
    "Returns a session to a checkpoint: its transcript, item history, memory and counters become what they were there. Later turns leave the current timeline but stay in the ledger's log " +
    '(a later checkpoint stays listed with onCurrentTimeline false, and rolling forward to it works). ' +
    'Use it to undo a bad turn or a failed experiment; take the checkpointId from show_session. Refused while a turn is in flight (TURN_IN_FLIGHT). ' +
    'Answers {sessionId, checkpointId, turnIndex, fromRevision, targetRevision, revision}. At most 1,000 characters.',
  scope: 'write',
  maxChars: 1_000,
  input: z.strictObject({ sessionId: sessionIdArgument, checkpointId: checkpointIdArgument, idempotencyKey: idempotencyKeyArgument }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(client, args) {
    const rolledBack = await client.rollback(args.sessionId, args.checkpointId, { idempotencyKey: args.idempotencyKey });
    return {
      sessionId: args.sessionId,
      checkpointId: rolledBack.checkpointId,
      turnIndex: rolledBack.turnIndex,
      fromRevision: rolledBack.fromRevision,
      targetRevision: rolledBack.targetRevision,
      revision: rolledBack.revision,
    };
  },
});
