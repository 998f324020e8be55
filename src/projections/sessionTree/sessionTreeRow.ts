// One row per session: where it sits in its tree (root, depth, path), and whether it was destroyed.
import { EntitySchema } from 'typeorm';

export interface SessionTreeRow {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  sessionId: string;
  /** The parent it was created under, kept after that parent is destroyed (the session is then an orphan). */
  parentId: string | null;
  /** The root of the live tree it is in: itself for a root or an orphan. */
  rootId: string;
  depth: number;
  /** Ids from the root down to this session, '/'-joined: a subtree is every path under `path + '/'`. */
  path: string;
  kind: 'root' | 'child' | 'fork';
  agentName: string | null;
  createdAt: Date;
  destroyed: boolean;
  destroyedAt: Date | null;
}

export const SessionTreeEntity = new EntitySchema<SessionTreeRow>({
  name: 'SessionTreeRow',
  tableName: 'session_tree',
  columns: {
    tenant: { type: 'text', primary: true },
    sessionId: { name: 'session_id', type: 'text', primary: true },
    parentId: { name: 'parent_id', type: 'text', nullable: true },
    rootId: { name: 'root_id', type: 'text' },
    depth: { type: 'integer' },
    path: { type: 'text' },
    kind: { type: 'text' },
    agentName: { name: 'agent_name', type: 'text', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    destroyed: { type: 'boolean' },
    destroyedAt: { name: 'destroyed_at', type: 'timestamptz', nullable: true },
  },
});

/** The quoted, schema-qualified table name, for the statements TypeORM's builders cannot say. */
export function sessionTreeTable(manager: {
  connection: { getMetadata(target: unknown): { schema?: string; tableName: string }; driver: { escape(name: string): string } };
}): string {
  const { schema, tableName } = manager.connection.getMetadata(SessionTreeEntity);
  const { driver } = manager.connection;
  return schema ? `${driver.escape(schema)}.${driver.escape(tableName)}` : driver.escape(tableName);
}
