// show_session: one session's summary, its checkpoints (newest first) and its place in the session tree.
import { z } from 'zod';
import { fitList } from '../boundedAnswer.js';
import { ledgerTool, sessionIdArgument } from '../ledgerTool.js';

const MAX_CHARS = 12_000;

const input = z.strictObject({
  sessionId: sessionIdArgument,
  checkpointsBefore: z.number().int().min(0).optional().describe("The previous answer's checkpoints.nextBefore: older checkpoints. Left out: the newest."),
});

export const showSessionTool = ledgerTool({
  name: 'show_session',
  title: 'Show a session, its checkpoints and its tree',
  description:
    'Shows one session: its status (active, ended, destroyed), session key, origin (platform, chat), times, turn, message and item counts, token usage, ' +
    'its checkpoints newest first (checkpointId, label, turnIndex, createdAt, auto: taken after a turn, onCurrentTimeline: false once rolled back past it) ' +
    'and its session tree (the root, its parent, the children and forks below it). ' +
    'Use it before create_checkpoint, rollback_session or fork_session to pick a checkpoint, or to see where a session came from. ' +
    `At most 20 checkpoints and 50 tree nodes per answer; checkpoints.nextBefore pages to older checkpoints. The answer is at most ${MAX_CHARS.toLocaleString('en')} characters of JSON ("truncated": true when lists were cut for size).`,
  scope: 'read',
  maxChars: MAX_CHARS,
  input,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(client, args) {
    const session = await client.getSession(args.sessionId);
    // The tree is a read model: waiting for the session's own last event shows a fork made by the call before this one.
    const [checkpoints, tree] = await Promise.all([
      client.listCheckpoints(args.sessionId, { limit: 20, before: args.checkpointsBefore }),
      client.sessionTree(args.sessionId, { limit: 50 }, { minPosition: session.position }),
    ]);
    const summary = {
      sessionId: session.sessionId,
      sessionKey: session.sessionKey,
      status: session.status,
      origin: session.origin,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      endedAt: session.endedAt,
      endReason: session.endReason,
      parentSessionId: session.parentSessionId,
      turnCount: session.turnCount,
      messageCount: session.messageCount,
      itemCount: session.itemCount,
      totalTokens: session.counters.totalTokens,
      estimatedCostUsd: session.counters.estimatedCostUsd,
      turnInFlight: session.turnInFlight,
    };
    const listed = checkpoints.checkpoints.map(({ checkpointId, label, revision, turnIndex, createdAt, auto, onCurrentTimeline }) => ({
      checkpointId,
      label,
      revision,
      turnIndex,
      createdAt,
      auto,
      onCurrentTimeline,
    }));
    const treeView = {
      rootSessionId: tree.rootSessionId,
      depth: tree.depth,
      nodes: tree.nodes.map(({ sessionId, parentSessionId, depth, kind, agentName }) => ({ sessionId, parentSessionId, depth, kind, agentName })),
      more: tree.nextCursor !== null,
    };
    // The tree is cut first (it is the rarer need), then the checkpoints.
    const withNodes = (nodes: typeof treeView.nodes) => ({
      session: summary,
      checkpoints: { items: listed, nextBefore: checkpoints.nextBefore },
      tree: { ...treeView, nodes },
    });
    const nodes = fitList(treeView.nodes, MAX_CHARS, withNodes, 'first');
    const answer = (kept: typeof listed) => ({
      ...withNodes(nodes.kept),
      checkpoints: { items: kept, nextBefore: kept.length < listed.length ? kept[kept.length - 1]!.revision : checkpoints.nextBefore },
      truncated: nodes.omitted > 0 || kept.length < listed.length,
    });
    return answer(fitList(listed, MAX_CHARS, answer, 'first').kept);
  },
});
