// Calls the ledger's HTTP API with the bearer token the operator entered (kept in sessionStorage: this tab only).

const TOKEN_KEY = 'session-ledger.console.token';

export const bearerToken = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An error answer of the API: its status and machine-readable code ({"error": {"code", "message"}}). */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const enc = encodeURIComponent;

// Relative to the console's own folder, so a service mounted under a path prefix by a proxy still works.
const apiBase = () => new URL('../', window.location.href);

export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  const token = bearerToken.get();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(new URL(path.replace(/^\//, ''), apiBase()), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, 'NETWORK_ERROR', `the service did not answer (${error.message})`);
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const error = parsed && parsed.error;
    throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? response.statusText, error?.details);
  }
  return parsed;
}

export const get = (path) => api('GET', path);
export const post = (path, body = {}) => api('POST', path, body);

/** A query string from the non-empty entries of `params`. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
