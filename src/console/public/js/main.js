// The console's entry point: the bearer-token form and a hash router (#/, #/sessions/<id>, #/projections, #/jobs[/<id>]).
import { bearerToken } from './api.js';
import { errorBox } from './components.js';
import { el } from './element.js';
import { renderConversations } from './pages/conversations.js';
import { renderJob, renderJobs } from './pages/jobs.js';
import { renderProjections } from './pages/projections.js';
import { renderSession } from './pages/session.js';

const routes = [
  { pattern: /^\/$/, section: 'conversations', render: renderConversations },
  { pattern: /^\/sessions\/([^/]+)$/, section: 'conversations', render: renderSession },
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

setUpTokenForm();
window.addEventListener('hashchange', showRoute);
showRoute();
