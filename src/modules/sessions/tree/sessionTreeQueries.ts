// Reads of the session-tree read model: one node, a page of children, a page of a subtree, a subtree to destroy.
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { opaqueCursorCodec } from '../../../http/opaqueCursor.js';
import { isStorableText } from '../../../http/unsupportedCharacters.js';
import { SessionTreeEntity, type SessionTreeRow } from '../../../projections/sessionTree/sessionTreeRow.js';

export interface TreeNodeView {
  sessionId: string;
  /** Null for a root, and for an orphan whose parent was destroyed. */
  parentSessionId: string | null;
  depth: number;
  kind: SessionTreeRow['kind'];
  agentName: string | null;
  createdAt: string;
}

export function treeNodeView(row: SessionTreeRow, relativeTo = 0): TreeNodeView {
  return {
    sessionId: row.sessionId,
    parentSessionId: row.depth === 0 ? null : row.parentId,
    depth: row.depth - relativeTo,
    kind: row.kind,
    agentName: row.agentName,
    createdAt: row.createdAt.toISOString(),
  };
}

const rows = (readModels: DataSource) => readModels.getRepository(SessionTreeEntity);

export function findTreeNode(readModels: DataSource, sessionId: string, tenant: string | undefined): Promise<SessionTreeRow | null> {
  return rows(readModels).findOneBy({ tenant: tenant ?? '', sessionId });
}

export interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}

/** Live children, oldest first. */
export async function listChildren(readModels: DataSource, parent: SessionTreeRow, limit: number, cursor?: string): Promise<Page<TreeNodeView>> {
  if (parent.destroyed) return { items: [], nextCursor: null };
  const query = rows(readModels)
    .createQueryBuilder('node')
    .where('node.tenant = :tenant AND node.parentId = :parentId AND NOT node.destroyed', { tenant: parent.tenant, parentId: parent.sessionId });
  if (cursor !== undefined) {
    const [createdAt, sessionId] = childrenCursor.decode(cursor);
    query.andWhere('(node.createdAt, node.sessionId) > (:createdAt, :sessionId)', { createdAt: new Date(createdAt!), sessionId });
  }
  const found = await query
    .orderBy('node.createdAt', 'ASC')
    .addOrderBy('node.sessionId', 'ASC')
    .take(limit + 1)
    .getMany();
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => treeNodeView(row)),
    nextCursor: found.length > limit && last ? childrenCursor.encode([last.createdAt.toISOString(), last.sessionId]) : null,
  };
}

/** The live subtree under `root`, itself first, depth-first (by path); depths relative to `root`. */
export async function listSubtree(readModels: DataSource, root: SessionTreeRow, limit: number, maxDepth: number, cursor?: string): Promise<Page<TreeNodeView>> {
  if (root.destroyed) return { items: [], nextCursor: null };
  const query = rows(readModels)
    .createQueryBuilder('node')
    .where('node.tenant = :tenant AND (node.path = :path OR (node.path > :low AND node.path < :high))', subtreeRange(root))
    .andWhere('NOT node.destroyed AND node.depth <= :deepest', { deepest: root.depth + maxDepth });
  if (cursor !== undefined) query.andWhere('node.path > :after', { after: subtreeCursor.decode(cursor)[0] });
  const found = await query
    .orderBy('node.path', 'ASC')
    .take(limit + 1)
    .getMany();
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return { items: items.map((row) => treeNodeView(row, root.depth)), nextCursor: found.length > limit && last ? subtreeCursor.encode([last.path]) : null };
}

/** Every live session under `root`, deepest first: the order a cascade destroys them in. */
export async function liveDescendants(readModels: DataSource, root: SessionTreeRow): Promise<string[]> {
  const found = await rows(readModels)
    .createQueryBuilder('node')
    .select(['node.sessionId', 'node.depth', 'node.path'])
    .where('node.tenant = :tenant AND node.path > :low AND node.path < :high AND NOT node.destroyed', subtreeRange(root))
    .orderBy('node.depth', 'DESC')
    .addOrderBy('node.path', 'ASC')
    .getMany();
  return found.map((row) => row.sessionId);
}

// Paths compare in the C collation: everything under `path/` lies between `path/` and `path0` ('0' follows '/').
const subtreeRange = (root: SessionTreeRow) => ({ tenant: root.tenant, path: root.path, low: `${root.path}/`, high: `${root.path}0` });

// A part the database could not compare (a NUL) is as foreign as a malformed cursor.
const cursorParts = (length: number) =>
  opaqueCursorCodec(
    z.array(z.string().refine(isStorableText)).length(length),
    (parts: string[]) => parts,
    (parts) => parts,
  );
const childrenCursor = cursorParts(2);
const subtreeCursor = cursorParts(1);
