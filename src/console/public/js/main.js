// The console's entry point: the bearer-token form, the go-to box and a hash router (the routes below).
import { bearerToken } from './api.js';
import { errorBox } from './components.js';
import { el } from './element.js';
import { renderConversation } from './pages/conversation.js';
import { renderConversations } from './pages/conversations.js';
import { renderJob, renderJobs } from './pages/jobs.js';
import { renderProjections } from './pages/projections.js';
import { renderConversationRuntime, renderRuntimeSession } from './pages/runtime.js';
import { renderSearch } from './pages/search.js';
import { renderSession } from './pages/session.js';

const routes = [
  { pattern: /^\/$/, section: 'conversations', render: renderConversations },
  { pattern: /^\/sessions\/([^/]+)$/, section: 'conversations', render: renderSession },
  { pattern: /^\/conversations\/([^/]+)$/, section: 'conversations', render: renderConversation },
  { pattern: /^\/conversations\/([^/]+)\/runtime$/, section: 'conversations', render: renderConversationRuntime },
  { pattern: /^\/runtime-sessions\/([^/]+)$/, section: 'conversations', render: renderRuntimeSession },
  { pattern: /^\/search$/, section: 'search', render: renderSearch },
  { pattern: /^\/projections$/, section: 'projections', render: renderProjections },
  { pattern: /^\/jobs$/, section: 'jobs', render: renderJobs },
  { pattern: /^\/jobs\/([^/]+)$/, section: 'jobs', render: renderJob },
];

let disposeCurrent;

function decodeSegment(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function showRoute() {
  disposeCurrent?.();
  disposeCurrent = undefined;
  const hash = window.location.hash.replace(/^#/, '') || '/';
  const [path, search = ''] = hash.split('?');
  const view = document.getElementById('view');
  // Each route renders into its own container: a slow answer for a page left behind lands in a detached node.
  const page = el('div', { class: 'page' });
  view.replaceChildren(page);
  const route = routes.find((candidate) => candidate.pattern.test(path));
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('current', route !== undefined && link.dataset.section === route.section);
  if (!route) {
    page.append(el('h1', {}, 'Not found'), el('p', {}, 'No console page at this address. '), el('a', { href: '#/' }, 'Conversations'));
    return;
  }
  const params = path.match(route.pattern).slice(1).map(decodeSegment);
  try {
    const dispose = await route.render(page, { params, query: new URLSearchParams(search) });
    if (page.isConnected) disposeCurrent = dispose;
    else dispose?.();
  } catch (error) {
    page.append(errorBox(error));
  }
}

function showTokenState() {
  document.getElementById('token-state').textContent = bearerToken.get() ? 'token set for this tab' : 'no token';
}

function setUpTokenForm() {
  const form = document.getElementById('token-form');
  const input = document.getElementById('token-input');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (value) bearerToken.set(value);
    input.value = '';
    showTokenState();
    showRoute();
  });
  document.getElementById('token-forget').addEventListener('click', () => {
    bearerToken.clear();
    showTokenState();
    showRoute();
  });
  showTokenState();
}

/** Go to: a session id opens the session, a session key (agent:…) the conversation, rt_… the runtime session; anything else says what it takes. */
const SESSION_ID = /^[A-Za-z0-9_.-]{1,128}$/;
function setUpGoTo() {
  const form = document.getElementById('goto-form');
  const input = document.getElementById('goto-input');
  const state = document.getElementById('goto-state');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    state.textContent = '';
    if (/^rt_[0-9a-f]{16}$/.test(value)) window.location.hash = `#/runtime-sessions/${encodeURIComponent(value)}`;
    else if (value.includes(':')) window.location.hash = `#/conversations/${encodeURIComponent(value)}`;
    else if (SESSION_ID.test(value)) window.location.hash = `#/sessions/${encodeURIComponent(value)}`;
    else {
      state.textContent = 'a session id or a session key (agent:main:…)';
      return;
    }
    input.value = '';
  });
}

/** With authentication off the API answers without a token: then the token box is only clutter, and is hidden. */
async function showTokenFormIfNeeded() {
  const form = document.getElementById('token-form');
  if (bearerToken.get()) return;
  try {
    const probe = await fetch(new URL('../v1/sessions?limit=1', window.location.href), { headers: { accept: 'application/json' } });
    form.hidden = probe.status !== 401;
  } catch {
    form.hidden = false;
  }
}

setUpGoTo();
showTokenFormIfNeeded();
setUpTokenForm();
window.addEventListener('hashchange', showRoute);
showRoute();
