// How ADK's (appName, userId, sessionId) become ledger names: an external id, shared state ids, erasure keys.

/** `%`, `/` and control characters percent-encoded: every other character stays, and `/` then only separates. */
const escapePart = (part: string) => part.replace(/[%/\u0000-\u001f\u007f]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
const unescapePart = (part: string) => part.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * `<appName>/<userId>/<sessionId>`, each part escaped: reversible (adkSessionOf) and collision-free, since a part
 * never holds an unescaped `/` and an escape always starts with `%`, itself escaped.
 */
export function adkExternalId(appName: string, userId: string, sessionId: string): string {
  return [appName, userId, sessionId].map(escapePart).join('/');
}

/** The ADK names an external id holds, or null for one that is not of that shape. */
export function adkSessionOf(externalId: string): { appName: string; userId: string; sessionId: string } | null {
  const parts = externalId.split('/');
  if (parts.length !== 3) return null;
  const [appName, userId, sessionId] = parts.map(unescapePart) as [string, string, string];
  return { appName, userId, sessionId };
}

/** The shared state of every session of an app (ADK's `app:` keys). */
export const appStateId = (appName: string) => `app:${escapePart(appName)}`;

/** The shared state of every session of an app and user (ADK's `user:` keys). */
export const userStateId = (appName: string, userId: string) => `user:${escapePart(appName)}/${escapePart(userId)}`;
