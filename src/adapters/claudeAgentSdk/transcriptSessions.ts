// Which ledger session holds which Claude Code transcript: the external id and metadata of a SessionKey.
import type { SessionKey } from '@anthropic-ai/claude-agent-sdk';
import type { JsonObject } from '../../client/ledgerApiTypes.js';

/**
 * `{projectKey}/{sessionId}` for a main transcript, `{projectKey}/{sessionId}/{subpath}` for a subagent's, each part
 * URL-encoded so no `/` inside a part can make two keys meet. A subagent transcript is a session of its own id
 * rather than a child session: creating it by id is race-free and reading it is one look-up, where a child is found
 * only through a listing that may lag.
 */
export function transcriptExternalId(key: SessionKey): string {
  const parts = [key.projectKey, key.sessionId, ...(key.subpath === undefined ? [] : [key.subpath])];
  return parts.map((part) => encodeURIComponent(part)).join('/');
}

/** What the listings filter on: a project's main transcripts, or one session's subagent transcripts. */
export function transcriptMetadata(key: SessionKey): JsonObject {
  return key.subpath === undefined
    ? { projectKey: key.projectKey, sessionId: key.sessionId, transcript: 'main' }
    : { projectKey: key.projectKey, sessionId: key.sessionId, transcript: 'subagent', subpath: key.subpath };
}

export function mainTranscriptsOf(projectKey: string): string {
  return JSON.stringify({ projectKey, transcript: 'main' });
}

export function subagentTranscriptsOf(key: { projectKey: string; sessionId: string }): string {
  return JSON.stringify({ projectKey: key.projectKey, sessionId: key.sessionId, transcript: 'subagent' });
}
