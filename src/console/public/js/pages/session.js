// One session: summary and counters, transcript, item history, time-travel slider, checkpoints (roll back, fork), event timeline, tree.
import { enc, get } from '../api.js';
import { badge, dataTable, errorBox, loading, section, sessionKeyText } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatJson, formatTime } from '../format.js';
import { checkpointsTable } from '../session/checkpointsTable.js';
import { eventTimeline } from '../eventTimeline.js';
import { destroyPanel } from '../session/destroyPanel.js';
import { graphCheckpointsOf, graphCheckpointsTable } from '../session/graphCheckpoints.js';
import { sessionTree } from '../session/sessionTree.js';
import { revisionDiffPanel } from '../session/revisionDiff.js';
import { timeTravelPanel } from '../session/timeTravel.js';
import { itemHistory } from '../session/itemList.js';
import { countersList, transcriptList } from '../session/transcriptList.js';

function summaryList(summary) {
  const rows = [
    ['status', badge(summary.status, summary.status === 'active' ? 'ok' : 'muted')],
    ['session key', summary.sessionKey ? el('a', { href: `#/conversations/${enc(summary.sessionKey)}` }, sessionKeyText(summary.sessionKey)) : '—'],
    ['parent', summary.parentSessionId ? el('a', { href: `#/sessions/${enc(summary.parentSessionId)}` }, summary.parentSessionId) : '—'],
    ['fork of', summary.forkOf ? `${summary.forkOf.sessionId} at ${summary.forkOf.checkpointId ?? 'its state then'}` : '—'],
    ['agent', summary.agentName ?? '—'],
    ['slot', summary.currentSlot],
    ['created', formatTime(summary.createdAt)],
    ['updated', formatTime(summary.updatedAt)],
    ['ended', summary.endedAt ? `${formatTime(summary.endedAt)} (${summary.endReason})` : '—'],
    ['turn in flight', summary.turnInFlight ? `turn ${summary.turnInFlight.turnIndex} since ${formatTime(summary.turnInFlight.startedAt)}` : 'none'],
    ['revision', String(summary.revision)],
  ];
  return el(
    'dl',
    { class: 'summary' },
    rows.map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, value))),
  );
}

/** Session memory (name, value, updated) and the context slots with their live message counts. */
function memoryAndSlots(memory, slots) {
  return el(
    'div',
    { class: 'columns', id: 'memory-and-slots' },
    el(
      'div',
      {},
      el('h3', {}, `Memory (${memory.entries.length})`),
      dataTable(
        ['Name', 'Value', 'Updated'],
        memory.entries.map((entry) => [el('code', {}, entry.name), el('pre', { class: 'json' }, formatJson(entry.value)), formatTime(entry.updatedAt)]),
        { empty: 'No memory entries.' },
      ),
    ),
    el(
      'div',
      {},
      el('h3', {}, `Context slots (${slots.slots.length})`),
      dataTable(
        ['Slot', 'Live messages', 'Created'],
        slots.slots.map((slot) => [
          el('span', {}, slot.name, slot.current ? ' ' : null, slot.current ? badge('current', 'ok') : null),
          String(slot.messageCount),
          formatTime(slot.createdAt),
        ]),
        { empty: 'No slots.' },
      ),
    ),
  );
}

export async function renderSession(page, { params: [sessionId], query }, status = el('div', { id: 'session-status' })) {
  const disposers = [];
  const summary = await get(`/v1/sessions/${enc(sessionId)}`);
  const destroyed = summary.status === 'destroyed';
  const [transcript, checkpoints, memory, slots, conversation, newestItems] = await Promise.all([
    get(`/v1/sessions/${enc(sessionId)}/transcript?includeDeleted=true`),
    destroyed ? Promise.resolve({ checkpoints: [] }) : get(`/v1/sessions/${enc(sessionId)}/checkpoints?limit=200`),
    destroyed ? Promise.resolve({ entries: [] }) : get(`/v1/sessions/${enc(sessionId)}/memory`),
    destroyed ? Promise.resolve({ slots: [] }) : get(`/v1/sessions/${enc(sessionId)}/slots`),
    // Its conversation's current session cannot be destroyed: the page needs to know whether this is it.
    destroyed || !summary.sessionKey ? Promise.resolve(null) : get(`/v1/conversations/${enc(summary.sessionKey)}`).catch(() => null),
    get(`/v1/sessions/${enc(sessionId)}/items?limit=100`),
  ]);
  const graphCheckpoints = graphCheckpointsOf(newestItems.items);

  /** After a rollback, fork or destroy: redraw everything from the service, keeping the outcome (a node) on top. */
  const reload = async (shown, { position } = {}) => {
    disposers.forEach((dispose) => dispose());
    page.replaceChildren();
    try {
      // A fork's new node is in the tree read model once it has applied the fork's position.
      const next = new URLSearchParams(position ? { minPosition: String(position) } : {});
      const dispose = await renderSession(page, { params: [sessionId], query: next }, el('div', { id: 'session-status' }, shown));
      disposers.splice(0, disposers.length, dispose);
    } catch (error) {
      page.append(shown, errorBox(error));
    }
  };

  const timeline = eventTimeline(`/v1/sessions/${enc(sessionId)}/events`, { onTravel: (revision) => travel.moveTo(revision) });
  const travel = timeTravelPanel(sessionId, summary.revision, timeline.typeAt);
  disposers.push(travel.dispose);
  const tree = el('div', {}, loading());
  const foundItem = query?.get('item');
  const items = summary.itemCount > 0 ? itemHistory(sessionId, { found: foundItem === null || foundItem === undefined ? undefined : Number(foundItem) }) : null;
  const live = transcript.messages.filter((message) => !message.deleted).length;

  page.append(
    el('h1', {}, 'Session ', el('code', { id: 'session-id' }, summary.sessionId)),
    status,
    el(
      'div',
      { class: 'columns' },
      section('Summary', summaryList(summary)),
      section(
        'Counters',
        countersList(summary.counters, [
          ['turns', summary.turnCount],
          ['messages', summary.messageCount],
          ['items', summary.itemCount],
        ]),
      ),
    ),
    section(`Transcript (${live} live of ${transcript.messages.length})`, transcriptList(transcript.messages, { id: 'transcript' })),
    // Node.append writes null as the text "null": a page without items gets nothing here.
    ...(items ? [section(`Items (${summary.itemCount})`, items.element)] : []),
    section('Memory and context slots', memoryAndSlots(memory, slots)),
    section('Time travel', el('p', { class: 'muted' }, 'Move the slider to replay the session to any revision.'), travel.panel),
    section(
      'Compare revisions',
      el('p', { class: 'muted' }, 'What changed between two revisions: turn, counters, messages, memory and slots, and the events in between.'),
      revisionDiffPanel(sessionId, summary.revision, async (from, to) => {
        if (to <= from) return [];
        const answer = await get(`/v1/sessions/${enc(sessionId)}/events?fromRevision=${from + 1}&limit=${Math.min(1000, to - from)}`);
        return answer.events.filter((event) => event.revision <= to);
      }),
    ),
    section(
      'Checkpoints',
      checkpointsTable(sessionId, checkpoints.checkpoints, { writable: summary.status === 'active', revision: summary.revision, onChanged: reload }),
    ),
    // page.append is the DOM's own: no null children, so a section that may be absent is spread in.
    ...(graphCheckpoints.length > 0
      ? [section(`LangGraph checkpoints (${graphCheckpoints.length})`, graphCheckpointsTable(graphCheckpoints, { more: newestItems.hasMore }))]
      : []),
    section('Tree', tree),
    section('Event timeline', timeline.element),
    ...(destroyed
      ? []
      : [
          section(
            'Destroy',
            destroyPanel(summary, { checkpointCount: checkpoints.checkpoints.length, revision: summary.revision, conversation, onChanged: reload }),
          ),
        ]),
  );

  // From a search hit: the message it found, scrolled to and marked.
  const found = query?.get('message');
  const target = found === null || found === undefined ? null : page.querySelector(`#transcript li.message[data-index="${Number(found)}"]`);
  if (target) {
    target.classList.add('found');
    target.scrollIntoView({ block: 'center' });
  }

  await Promise.all([
    timeline.load(),
    items?.load(),
    sessionTree(sessionId, query?.get('minPosition')).then(
      (drawn) => replaceContent(tree, drawn),
      (error) =>
        replaceContent(
          tree,
          error.code === 'SESSION_NOT_FOUND' ? el('p', { class: 'muted' }, 'The session tree read model does not know this session yet.') : errorBox(error),
        ),
    ),
  ]);
  return () => disposers.forEach((dispose) => dispose());
}
