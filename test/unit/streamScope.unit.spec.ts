// Tenant namespaces: no default-tenant key or id can name a tenant's stream, and the tenant comes back off every name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTenantName } from '../../src/config/apiTokens.js';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { jobStreamName } from '../../src/events/job/jobEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { streamScope } from '../../src/events/streamScope.js';

const tenant = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/).filter(isTenantName);
const anyKey = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  tenant.map((name) => `${name}~conversation-agent:main:cli:dm:1`),
);
const streamNames = [conversationStreamName, sessionStreamName, jobStreamName];

describe('tenant stream namespaces', () => {
  it('never let a default-tenant key and a tenant key share a stream', () => {
    fc.assert(
      fc.property(anyKey, tenant, anyKey, fc.constantFrom(...streamNames), (key, name, tenantKey, streamName) => {
        expect(streamName(key)).not.toBe(streamName(tenantKey, name));
      }),
      { numRuns: 2_000 },
    );
  });

  it('gives back the tenant and the unscoped name of every stream', () => {
    fc.assert(
      fc.property(anyKey, fc.option(tenant, { nil: undefined }), fc.constantFrom(...streamNames), (key, name, streamName) => {
        expect(streamScope(streamName(key, name))).toEqual({ tenant: name ?? '', name: streamName(key) });
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses tenant names with a dash, which would read as a category', () => {
    expect(isTenantName('conversation-x')).toBe(false);
    expect(isTenantName('acme_corp')).toBe(true);
    expect(streamScope('conversation-x~conversation-agent:main:cli:dm:1')).toEqual({ tenant: '', name: 'conversation-x~conversation-agent:main:cli:dm:1' });
  });
});
