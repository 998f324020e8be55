// The session tree: parents, children, roots and depths, from SessionCreated and SessionDestroyed of session streams.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type SessionStreamEvent, sessionStreamName } from '../../events/session/sessionEvents.js';
import { streamScope } from '../../events/streamScope.js';
import { BatchRows } from '../batchRows.js';
import { type Projection, projectEach } from '../projection.js';
import { SessionTreeEntity, type SessionTreeRow, sessionTreeTable } from './sessionTreeRow.js';

const sessionPrefix = sessionStreamName('');

type TreeEvent = Extract<SessionStreamEvent, { type: 'SessionCreated' | 'SessionDestroyed' }>;
type TreeRows = BatchRows<SessionTreeRow, 'tenant' | 'sessionId'>;

/** The session and the tree event, for the two event types the tree follows; null for every other event. */
function treeEventOf(event: RecordedEvent): { tenant: string; sessionId: string; treeEvent: TreeEvent } | null {
  if (event.type !== 'SessionCreated' && event.type !== 'SessionDestroyed') return null;
  const { tenant, name } = streamScope(event.streamName);
  if (!name.startsWith(sessionPrefix)) return null;
  return { tenant, sessionId: name.slice(sessionPrefix.length), treeEvent: { type: event.type, data: event.data } as unknown as TreeEvent };
}

/** The events this projection writes rows for: `applyBatch` keeps only these, and the runner's transaction is for them. */
const isTreeEvent = (event: RecordedEvent): boolean => treeEventOf(event) !== null;

export const sessionTreeProjection: Projection = {
  name: 'session-tree',
  tables: ['session_tree'],
  entities: [SessionTreeEntity],
  appliesTo: isTreeEvent,
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager) {
    const treeEvents = events.filter(isTreeEvent);
    if (treeEvents.length === 0) return;
    const rows: TreeRows = new BatchRows(SessionTreeEntity, ['tenant', 'sessionId']);
    // Each session, and each parent a new session names.
    await rows.load(
      manager,
      treeEvents.flatMap((event) => {
        const { tenant, sessionId, treeEvent } = treeEventOf(event)!;
        const parentId = treeEvent.type === 'SessionCreated' ? treeEvent.data.parentSessionId : null;
        return parentId
          ? [
              { tenant, sessionId },
              { tenant, sessionId: parentId },
            ]
          : [{ tenant, sessionId }];
      }),
    );
    await projectEach('session-tree', treeEvents, async (event) => {
      const { tenant, sessionId, treeEvent } = treeEventOf(event)!;
      if (treeEvent.type === 'SessionCreated') addSession(rows, tenant, sessionId, treeEvent.data);
      else await destroySession(rows, tenant, sessionId, treeEvent.data.at, manager);
    });
    await rows.flush(manager);
  },
};

type CreatedData = Extract<SessionStreamEvent, { type: 'SessionCreated' }>['data'];

function addSession(rows: TreeRows, tenant: string, sessionId: string, data: CreatedData): void {
  if (rows.get({ tenant, sessionId })) throw new Error(`session_tree already has session ${sessionId}: a session is created once`);
  const parentId = data.parentSessionId ?? null;
  // A child created while its parent was being destroyed starts out as an orphan: the root of its own tree.
  const found = parentId === null ? null : rows.get({ tenant, sessionId: parentId });
  const parent = found && !found.destroyed ? found : null;
  rows.set({
    tenant,
    sessionId,
    parentId,
    rootId: parent ? parent.rootId : sessionId,
    depth: parent ? parent.depth + 1 : 0,
    path: parent ? `${parent.path}/${sessionId}` : sessionId,
    kind: parentId === null ? 'root' : data.forkOf ? 'fork' : 'child',
    agentName: data.agentName ?? null,
    createdAt: new Date(data.at),
    destroyed: false,
    destroyedAt: null,
  });
}

/** Marks the session destroyed and detaches what was under it: each child becomes the root of its own tree. */
async function destroySession(rows: TreeRows, tenant: string, sessionId: string, at: string, manager: EntityManager): Promise<void> {
  const node = rows.get({ tenant, sessionId });
  if (!node || node.destroyed) return;
  rows.set({ ...node, destroyed: true, destroyedAt: new Date(at) });
  // The subtree moves in one statement over the table, so the batch's rows are written first and read again after.
  await rows.flush(manager);
  const cut = node.path.length + 2;
  // Paths compare in the C collation: everything under `path/` lies between `path/` and `path0` ('0' follows '/').
  await manager.query(
    `UPDATE ${sessionTreeTable(manager)}
     SET path = substr(path, $3), depth = depth - $4, root_id = split_part(substr(path, $3), '/', 1)
     WHERE tenant = $5 AND path > $1 AND path < $2`,
    [`${node.path}/`, `${node.path}0`, cut, node.depth + 1, tenant],
  );
  await rows.refresh(manager);
}
