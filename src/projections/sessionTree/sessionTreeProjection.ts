// The session tree: parents, children, roots and depths, from SessionCreated and SessionDestroyed of session streams.
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../events/eventStore.js';
import { type SessionStreamEvent, sessionStreamName } from '../../events/session/sessionEvents.js';
import { streamScope } from '../../events/streamScope.js';
import type { Projection } from '../projection.js';
import { SessionTreeEntity, sessionTreeTable } from './sessionTreeRow.js';

const sessionPrefix = sessionStreamName('');

export const sessionTreeProjection: Projection = {
  name: 'session-tree',
  tables: ['session_tree'],
  entities: [SessionTreeEntity],
  async apply(event: RecordedEvent, manager: EntityManager) {
    const { tenant, name } = streamScope(event.streamName);
    if (!name.startsWith(sessionPrefix)) return;
    const sessionId = name.slice(sessionPrefix.length);
    const sessionEvent = { type: event.type, data: event.data } as unknown as SessionStreamEvent;
    if (sessionEvent.type === 'SessionCreated') await addSession(tenant, sessionId, sessionEvent.data, manager);
    else if (sessionEvent.type === 'SessionDestroyed') await destroySession(tenant, sessionId, sessionEvent.data.at, manager);
  },
};

type CreatedData = Extract<SessionStreamEvent, { type: 'SessionCreated' }>['data'];

async function addSession(tenant: string, sessionId: string, data: CreatedData, manager: EntityManager): Promise<void> {
  const rows = manager.getRepository(SessionTreeEntity);
  const parentId = data.parentSessionId ?? null;
  // A child created while its parent was being destroyed starts out as an orphan: the root of its own tree.
  const parent = parentId === null ? null : await rows.findOneBy({ tenant, sessionId: parentId, destroyed: false });
  await rows.insert({
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
async function destroySession(tenant: string, sessionId: string, at: string, manager: EntityManager): Promise<void> {
  const rows = manager.getRepository(SessionTreeEntity);
  const node = await rows.findOneBy({ tenant, sessionId });
  if (!node || node.destroyed) return;
  await rows.update({ tenant, sessionId }, { destroyed: true, destroyedAt: new Date(at) });
  const cut = node.path.length + 2;
  // Paths compare in the C collation: everything under `path/` lies between `path/` and `path0` ('0' follows '/').
  await manager.query(
    `UPDATE ${sessionTreeTable(manager)}
     SET path = substr(path, $3), depth = depth - $4, root_id = split_part(substr(path, $3), '/', 1)
     WHERE tenant = $5 AND path > $1 AND path < $2`,
    [`${node.path}/`, `${node.path}0`, cut, node.depth + 1, tenant],
  );
}
