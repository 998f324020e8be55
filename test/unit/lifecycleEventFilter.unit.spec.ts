// Which conversation an event belongs to, and the lifecycle stream's filter: types, conversation, tenant.
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { matchesLifecycleFilter } from '../../src/modules/eventFeed/lifecycleEventFilter.js';
import { sessionKeyFromEventData, sessionKeyFromStreamName } from '../../src/modules/eventFeed/sessionKeyOfEvent.js';

const event = (streamName: string, type: string, data: object = {}, metadata: object = {}, revision = 0): RecordedEvent => ({
  id: 'e',
  streamName,
  revision,
  position: 1,
  type,
  data: data as RecordedEvent['data'],
  metadata: metadata as RecordedEvent['metadata'],
  createdAt: new Date(0),
});

describe('the session key of an event', () => {
  it('reads conversation and runtime-binding streams by name, tenant prefix or not', () => {
    expect(sessionKeyFromStreamName('conversation-agent:main:telegram:dm:1')).toBe('agent:main:telegram:dm:1');
    expect(sessionKeyFromStreamName('acme~conversation-agent:main:telegram:dm:1')).toBe('agent:main:telegram:dm:1');
    expect(sessionKeyFromStreamName('runtime-binding-agent:main:x:dm:2')).toBe('agent:main:x:dm:2');
  });

  it('needs the first event of session, runtime and job streams, and knows gateways belong to none', () => {
    expect(sessionKeyFromStreamName('session-20260101_000000_aaaaaaaa')).toBeUndefined();
    expect(sessionKeyFromStreamName('runtime-rt_1')).toBeUndefined();
    expect(sessionKeyFromStreamName('acme~job-daily')).toBeUndefined();
    expect(sessionKeyFromStreamName('gateway-bot-1')).toBeNull();
  });

  it("reads a first event's data, and a job's origin from its definition and each fire", () => {
    expect(sessionKeyFromEventData(event('session-s', 'SessionCreated', { sessionKey: 'k1' }))).toBe('k1');
    expect(sessionKeyFromEventData(event('runtime-r', 'RuntimeSessionStarted', { sessionKey: 'k2' }))).toBe('k2');
    expect(sessionKeyFromEventData(event('job-j', 'JobFired', { task: { origin: { sessionKey: 'k3' } } }))).toBe('k3');
    expect(sessionKeyFromEventData(event('job-j', 'JobScheduled', { task: { origin: null } }))).toBeNull();
    expect(sessionKeyFromEventData(event('session-s', 'TurnRecorded', {}))).toBeUndefined();
  });
});

describe('lifecycle event filter', () => {
  const keyOf = async (candidate: RecordedEvent) => (candidate.streamName === 'session-mine' ? 'k' : null);

  it('keeps the types asked for, all without a list', async () => {
    const suspended = event('conversation-k', 'Suspended');
    expect(await matchesLifecycleFilter({ types: new Set(['Suspended']) }, suspended, keyOf)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set(['ResumeMarked']) }, suspended, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set() }, suspended, keyOf)).toBe(true);
  });

  it("keeps one conversation's events, asking for the key only when the cheap checks pass", async () => {
    let asked = 0;
    const counting = async (candidate: RecordedEvent) => (asked++, keyOf(candidate));
    expect(await matchesLifecycleFilter({ types: new Set(), sessionKey: 'k' }, event('session-mine', 'TurnRecorded'), counting)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set(), sessionKey: 'k' }, event('session-other', 'TurnRecorded'), counting)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set(['Suspended']), sessionKey: 'k' }, event('session-mine', 'TurnRecorded'), counting)).toBe(false);
    expect(asked).toBe(2);
  });

  it("shows a reader only its tenant's streams ('' the default tenant's), an admin everything", async () => {
    const acme = event('acme~conversation-k', 'Suspended', {}, { tenant: 'acme' });
    // Written for acme by the ticker or the watchdog: the stream name, not the metadata, says whose it is.
    const acmeByTicker = event('acme~job-daily', 'JobFired', {}, { actor: 'ticker' });
    const plain = event('conversation-k', 'Suspended');
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: 'acme' }, acme, keyOf)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: 'acme' }, acmeByTicker, keyOf)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: 'acme' }, plain, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: 'globex' }, acme, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: '' }, acme, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: '' }, plain, keyOf)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set() }, acme, keyOf)).toBe(true);
  });

  it("attributes the shared erasure log's records to the tenant each names, and the service's own streams to none", async () => {
    const acmeErasure = event('erasure-log', 'PersonalDataErased', { tenant: 'acme', streams: ['acme~conversation-erased:1'] });
    const defaultErasure = event('erasure-log', 'PersonalDataErased', { tenant: null, streams: ['conversation-erased:2'] });
    const bookkeeping = event('lease-projections', 'LeaseTaken');
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: '' }, acmeErasure, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: 'acme' }, acmeErasure, keyOf)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: 'globex' }, acmeErasure, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: '' }, defaultErasure, keyOf)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: 'acme' }, defaultErasure, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set(), tenant: '' }, bookkeeping, keyOf)).toBe(false);
    expect(await matchesLifecycleFilter({ types: new Set() }, acmeErasure, keyOf)).toBe(true);
    expect(await matchesLifecycleFilter({ types: new Set() }, bookkeeping, keyOf)).toBe(true);
  });
});
