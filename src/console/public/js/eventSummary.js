// One line saying what an event did, for timelines and "written" notices. Event data is hostile and changes shape over
// time (new types, new fields, new reasons): every value goes through `valueText`, so nothing ever reads `null`,
// `undefined` or `[object Object]`, and a type this file does not know reads as its fields.

const MAX_TEXT = 90;

function clip(text, max = MAX_TEXT) {
  const single = String(text).replace(/\s+/g, ' ').trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}

const isScalar = (value) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
const present = (value) => value !== null && value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);

/** A value as short text, or '' when there is nothing to say (null, undefined, empty). */
export function valueText(value, depth = 0) {
  if (!present(value)) return '';
  if (typeof value === 'string') return clip(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) {
    if (value.length <= 4 && value.every(isScalar)) return value.map((item) => valueText(item, depth + 1)).join(', ');
    return `${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  }
  if (typeof value === 'object') {
    if (depth > 0) return `${Object.keys(value).length} fields`;
    const inner = fieldsText(value, { depth: depth + 1, limit: 4 });
    return inner ? `(${inner})` : '';
  }
  return '';
}

/** `name value · name value` for the fields that have something to say; `at` is left out (timelines show the time). */
export function fieldsText(data, { depth = 0, limit = 6, skip = ['at'] } = {}) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return valueText(data, depth);
  const parts = [];
  for (const [name, value] of Object.entries(data)) {
    if (skip.includes(name)) continue;
    const text = valueText(value, depth);
    if (text) parts.push(`${name} ${text}`);
  }
  const shown = parts.slice(0, limit);
  if (parts.length > limit) shown.push(`${parts.length - limit} more`);
  return shown.join(' · ');
}

/** Joins the non-empty pieces: a summary built from optional fields has no dangling separators. */
const join = (...pieces) => pieces.filter((piece) => typeof piece === 'string' && piece.trim() !== '').join(' ');
const when = (value, text) => (present(value) ? text : '');
const quoted = (value) => (typeof value === 'string' && value.trim() !== '' ? `“${clip(value, 60)}”` : valueText(value));

function messagesText(messages) {
  if (!Array.isArray(messages)) return '';
  const roles = {};
  for (const message of messages) if (message && typeof message.role === 'string') roles[message.role] = (roles[message.role] ?? 0) + 1;
  const byRole = Object.entries(roles).map(([role, count]) => `${count} ${role}`);
  return `${messages.length} ${messages.length === 1 ? 'message' : 'messages'}${byRole.length ? ` (${byRole.join(', ')})` : ''}`;
}

function tokensText(usage) {
  if (!usage || typeof usage !== 'object') return '';
  const total = (Number(usage.inputTokens) || 0) + (Number(usage.outputTokens) || 0);
  return total > 0 ? `${total} tokens` : '';
}

function queuedText(message) {
  if (!message || typeof message !== 'object') return '';
  const text = present(message.text) ? quoted(message.text) : Array.isArray(message.media) ? `${message.media.length} media` : '';
  const metadata = message.metadata && typeof message.metadata === 'object' ? fieldsText(message.metadata, { depth: 1, limit: 3 }) : '';
  return join(valueText(message.kind) || valueText(message.mode), text, metadata ? `[${metadata}]` : '');
}

function originText(origin) {
  if (!origin || typeof origin !== 'object') return '';
  return join(
    valueText(origin.platform),
    valueText(origin.chatType),
    when(origin.chatName ?? origin.userName, `“${valueText(origin.chatName ?? origin.userName)}”`),
  );
}

/** session-ledger/langgraph's versions count from 1 in 32 digits, then a random part: the count is what a reader needs. */
const versionText = (version) => valueText(typeof version === 'string' ? version.replace(/^0+(?=\d)/, '') : version);
const namespaceText = (ns) => (present(ns) ? `in ${valueText(ns)}` : '');

/** Items whose type says what they are (LangGraph's checkpoints and writes, chat messages) read as what they hold. */
const ITEMS = {
  'langgraph.checkpoint': (item) =>
    join(
      'LangGraph checkpoint',
      valueText(item.checkpointId),
      namespaceText(item.checkpointNs),
      when(item.source, `· ${valueText(item.source)}`),
      when(item.step, `step ${valueText(item.step)}`),
      when(item.wroteChannels, `· wrote ${valueText(item.wroteChannels)}`),
    ),
  'langgraph.write': (item) =>
    join(
      'LangGraph write to',
      valueText(item.channel),
      when(item.taskId, `by task ${valueText(item.taskId)}`),
      `for checkpoint ${valueText(item.checkpointId)}`,
    ),
  'langgraph.channel': (item) =>
    join(
      'LangGraph channel',
      valueText(item.channel),
      `version ${versionText(item.version)}`,
      namespaceText(item.checkpointNs),
      item.value === null ? '(emptied)' : '',
    ),
  'langgraph.channel-part': () => 'LangGraph channel value, continued',
  'langgraph.namespace': (item) => join('LangGraph namespace', present(item.checkpointNs) ? valueText(item.checkpointNs) : '(root)', 'begins'),
  message: (item) => join(`${valueText(item.role) || 'message'}:`, quoted(item.content)),
};

function itemText(item) {
  if (!item || typeof item !== 'object' || typeof item.type !== 'string' || !Object.hasOwn(ITEMS, item.type)) return '';
  return ITEMS[item.type](item);
}

/** Summaries of the types whose fields alone would read poorly (message arrays, nested states). */
const SUMMARIES = {
  ConversationOpened: (d) => join('opened', when(d.origin, `from ${originText(d.origin)}`), when(d.gatewayId, `by gateway ${valueText(d.gatewayId)}`)),
  SessionBound: (d) =>
    join(valueText(d.sessionId), when(d.reason, `(${valueText(d.reason)})`), when(d.previousSessionId, `replaces ${valueText(d.previousSessionId)}`)),
  MessageQueued: (d) => join(queuedText(d.message), when(d.placement, `→ ${valueText(d.placement)}`)),
  ContinuationQueued: (d) =>
    join(
      'auto-continue at the head',
      when(d.message?.continuation?.reason, `(${valueText(d.message?.continuation?.reason)})`),
      when(d.message?.continuation?.bootId, `for boot ${valueText(d.message?.continuation?.bootId)}`),
      when(d.message?.continuation?.interruptedText, `· interrupted: ${quoted(d.message?.continuation?.interruptedText)}`),
    ),
  InterruptRequested: (d) => join(`${valueText(d.turnId)} asked to stop`, when(d.messageId, `by message ${valueText(d.messageId)}`)),
  PruneSweepClaimed: (d) => join(`slot ${valueText(d.slot)}`, when(d.maxAgeDays, `· entries idle ${valueText(d.maxAgeDays)} days`)),
  QueuedMessageReplaced: (d) => join(`replaces ${valueText(d.replacedId)}:`, queuedText(d.message), when(d.placement, `→ ${valueText(d.placement)}`)),
  SessionCreated: (d) =>
    join(
      valueText(d.sessionId),
      when(d.reason, `(${valueText(d.reason)})`),
      when(d.parentSessionId, `under ${valueText(d.parentSessionId)}`),
      when(d.forkOf, `forked at ${valueText(d.forkOf?.checkpointId) || 'the state then'}`),
      when(d.origin, `from ${originText(d.origin)}`),
    ),
  TurnRecorded: (d) =>
    join(
      `turn ${valueText(d.turnIndex)}`,
      valueText(d.status),
      when(d.messages, `· ${messagesText(d.messages)}`),
      when(tokensText(d.usage), `· ${tokensText(d.usage)}`),
      when(d.checkpointId, `· checkpoint ${valueText(d.checkpointId)}`),
    ),
  TranscriptRewritten: (d) => join(`${messagesText(d.messages)} replace ${valueText(d.replacedCount) || 0}`, when(d.slot, `in ${valueText(d.slot)}`)),
  StatusNoted: (d) => join(valueText(d.reason), quoted(d.message?.content)),
  RolledBack: (d) =>
    join(
      `to ${valueText(d.checkpointId)}`,
      when(d.targetRevision, `(revision ${valueText(d.targetRevision)})`),
      when(d.fromRevision, `from revision ${valueText(d.fromRevision)}`),
      when(d.restored?.turnCount, `· turn ${valueText(d.fromTurnIndex)} → ${valueText(d.restored?.turnCount)}`),
      when(d.restored?.transcript?.liveCount, `· ${valueText(d.restored?.transcript?.liveCount)} live messages`),
    ),
  ChildSessionCreated: (d) => join(valueText(d.kind) || 'child', valueText(d.childSessionId), when(d.agentName, `(${valueText(d.agentName)})`)),
  MemoryEntrySet: (d) => join(valueText(d.name), '=', valueText(d.value) || '(empty)'),
  ItemAppended: (d) =>
    join(
      `item ${valueText(d.position)}`,
      itemText(d.item) || join(valueText(d.itemId), when(d.item?.type, `· ${valueText(d.item?.type)}`), when(d.item?.role, valueText(d.item?.role))),
    ),
  ItemPopped: (d) => join(`item ${valueText(d.position)}`, valueText(d.itemId), 'removed'),
  ItemsCleared: (d) => `${valueText(d.clearedCount) || 0} items cleared`,
  RuntimeBound: (d) =>
    join(
      valueText(d.runtimeSessionId),
      when(d.provider, `(${join(valueText(d.provider), valueText(d.model))})`),
      when(d.reason, `reason ${valueText(d.reason)}`),
      quoted(d.note),
    ),
  TurnStarted: (d) => (present(d.turnId) ? join(valueText(d.turnId), quoted(d.input)) : `turn ${valueText(d.turnIndex)}`),
  GatewayStarted: (d) =>
    join(
      d.cleanShutdown ? 'after a clean shutdown' : 'after an unclean stop',
      when(d.resume, `· ${valueText(d.resume?.length)} to resume`),
      when(d.suspended, `· ${valueText(d.suspended?.length)} suspended`),
      when(d.marked, `· ${valueText(d.marked?.length)} marked`),
      when(d.abandonedTurns, `· ${valueText(d.abandonedTurns?.length)} turns abandoned`),
      when(d.continued, `· ${valueText(d.continued?.length)} auto-continued`),
    ),
  GatewayPlatformsRegistered: (d) => {
    if (!Array.isArray(d.platforms)) return '';
    if (d.platforms.length === 0) return 'no platforms';
    const each = (entry) =>
      join(
        valueText(entry?.platform),
        when(entry?.homeChannel?.name, `home ${quoted(entry?.homeChannel?.name)}`),
        entry?.piiSafe === true ? '(ids may be hashed)' : '',
      );
    return clip(d.platforms.map(each).join(', '));
  },
  JobScheduled: (d) => join(valueText(d.task?.name) || valueText(d.jobId), when(d.nextRunAt, `· next ${valueText(d.nextRunAt)}`)),
  JobFired: (d) => join(valueText(d.fireId), when(d.trigger, `(${valueText(d.trigger)})`), when(d.slot, `slot ${valueText(d.slot)}`)),
};

/** What the event did, in one line; '' only for an event with nothing to say beyond its type. */
export function eventSummary(event) {
  const data = event && event.data && typeof event.data === 'object' && !Array.isArray(event.data) ? event.data : {};
  const special = SUMMARIES[event?.type];
  if (special) {
    try {
      const text = special(data);
      if (text) return text;
    } catch {
      // A shape this summary did not expect (an older or newer schema): the fields below still say what it holds.
    }
  }
  return fieldsText(data);
}
