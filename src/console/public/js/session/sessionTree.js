// The session's whole tree (from its root, GET …/tree), drawn as nested lists: children under their parent.
import { enc, get } from '../api.js';
import { badge } from '../components.js';
import { el } from '../element.js';

const MAX_NODES = 500;

/** Nodes come depth-first with parent ids; the tree is rebuilt from the parent ids, not from the order. */
function nest(nodes) {
  const children = new Map();
  const ids = new Set(nodes.map((node) => node.sessionId));
  const roots = [];
  for (const node of nodes) {
    if (node.parentSessionId && ids.has(node.parentSessionId)) {
      if (!children.has(node.parentSessionId)) children.set(node.parentSessionId, []);
      children.get(node.parentSessionId).push(node);
    } else {
      roots.push(node);
    }
  }
  return { roots, children };
}

function branch(nodes, children, currentId) {
  return el(
    'ul',
    {},
    nodes.map((node) =>
      el(
        'li',
        { dataset: { session: node.sessionId }, class: node.sessionId === currentId ? 'current' : null },
        el('a', { href: `#/sessions/${enc(node.sessionId)}`, 'aria-current': node.sessionId === currentId ? 'page' : null }, node.sessionId),
        ' ',
        badge(node.kind, node.kind === 'fork' ? 'info' : ''),
        node.agentName ? el('span', { class: 'muted' }, ` ${node.agentName}`) : null,
        children.has(node.sessionId) ? branch(children.get(node.sessionId), children, currentId) : null,
      ),
    ),
  );
}

/** `minPosition`: read the tree read model at least as new as a write the page just made (a fork). */
export async function sessionTree(sessionId, minPosition) {
  const wait = minPosition ? `&minPosition=${minPosition}` : '';
  const own = await get(`/v1/sessions/${enc(sessionId)}/tree?limit=1${wait}`);
  const whole = await get(`/v1/sessions/${enc(own.rootSessionId)}/tree?limit=${MAX_NODES}${wait}`);
  const { roots, children } = nest(whole.nodes);
  return el(
    'div',
    { class: 'tree', id: 'session-tree' },
    branch(roots, children, sessionId),
    whole.nextCursor ? el('p', { class: 'muted' }, `Only the first ${MAX_NODES} sessions of this tree are drawn.`) : null,
  );
}
