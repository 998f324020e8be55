// Destroying a session (DELETE /v1/sessions/{id}[?cascade=true]): it asks first, naming the checkpoints that stop
// being listed and the children that become orphans (or, with cascade, every descendant destroyed with it).
import { api, enc, get } from '../api.js';
import { confirmAction, notice, writtenEvents } from '../components.js';
import { el } from '../element.js';
import { eventsAfter } from './checkpointsTable.js';

const plural = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

async function describeDestroy(sessionId, checkpointCount, cascade) {
  const tree = await get(`/v1/sessions/${enc(sessionId)}/tree?limit=500`);
  const descendants = tree.nodes.filter((node) => node.sessionId !== sessionId);
  const children = descendants.filter((node) => node.parentSessionId === sessionId);
  const listed = (nodes) =>
    nodes
      .slice(0, 5)
      .map((node) => node.sessionId)
      .join(', ') + (nodes.length > 5 ? `, and ${nodes.length - 5} more` : '');
  const what = cascade
    ? descendants.length > 0
      ? `Destroy session ${sessionId} and its ${plural(descendants.length, 'descendant')} (${listed(descendants)}), deepest first: `
      : `Destroy session ${sessionId} (it has no live descendants): `
    : `Destroy session ${sessionId}: ` +
      (children.length > 0 ? `its ${plural(children.length, 'live child', 'live children')} (${listed(children)}) become roots of their own trees; ` : '');
  return (
    what +
    `it refuses every write from now on and its ${plural(checkpointCount, 'checkpoint')} are no longer listed. ` +
    `Writes SessionDestroyed on session-${sessionId}${cascade && descendants.length > 0 ? ' and on each descendant' : ''}. ` +
    `This cannot be undone; the events stay readable (timeline, time travel).`
  );
}

/**
 * `conversation`: the routing entry of the session's key, when it has one: its current session cannot be destroyed
 * (the service answers SESSION_IN_USE), so the page says what to do instead of offering a button that fails.
 */
export function destroyPanel(summary, { checkpointCount, revision, conversation, onChanged }) {
  const sessionId = summary.sessionId;
  if (conversation && conversation.sessionId === sessionId) {
    return el(
      'p',
      { class: 'muted', id: 'destroy-blocked' },
      'This is the current session of its conversation, so it cannot be destroyed: ',
      el('a', { href: `#/conversations/${enc(summary.sessionKey)}` }, 'reset or switch the conversation'),
      ' first.',
    );
  }
  const cascade = el('input', { type: 'checkbox', id: 'destroy-cascade', name: 'cascade' });
  return el(
    'div',
    { id: 'destroy-session', class: 'action-list' },
    el('label', {}, cascade, ' also destroy its children and forks (cascade)'),
    confirmAction('Destroy session', {
      kind: 'danger',
      confirmWord: 'destroy',
      describe: () => describeDestroy(sessionId, checkpointCount, cascade.checked),
      run: async () => {
        const result = await api('DELETE', `/v1/sessions/${enc(sessionId)}${cascade.checked ? '?cascade=true' : ''}`);
        const shown = el(
          'div',
          {},
          notice(
            result.destroyed.length > 0 ? `Destroyed ${result.destroyed.join(', ')}.` : `Session ${sessionId} was destroyed already: nothing was written.`,
            'ok',
          ),
          writtenEvents(`session-${sessionId}`, await eventsAfter(`/v1/sessions/${enc(sessionId)}/events`, revision)),
        );
        await onChanged(shown, { position: result.position });
        return el('span');
      },
    }),
  );
}
