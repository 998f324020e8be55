// Whose an event is: the tenant of its stream, or for the shared erasure log the tenant the record names.
import type { RecordedEvent } from '../../events/eventStore.js';
import { streamScope } from '../../events/streamScope.js';
import { ERASURE_LOG_STREAM } from '../../events/erasure/erasureLogEvents.js';

// Categories whose streams a tenant owns (`acme~conversation-…`; unprefixed: the default tenant's). Every other
// stream is the service's own bookkeeping, shared by all tenants, and only admin tokens see it whole.
const TENANT_CATEGORIES = ['conversation-', 'session-', 'runtime-', 'job-', 'gateway-'] as const;

/**
 * The tenant an event belongs to ('' the default one); null: it belongs to no tenant, only an admin may read it.
 * The erasure log is one stream for every tenant, so its records are attributed by their own `tenant` field:
 * read by stream name alone, acme's erasure would reach a default-tenant token.
 */
export function eventTenant(event: RecordedEvent): string | null {
  if (event.streamName === ERASURE_LOG_STREAM) {
    const tenant = (event.data as { tenant?: unknown }).tenant;
    if (tenant === null) return '';
    return typeof tenant === 'string' ? tenant : null;
  }
  const { tenant, name } = streamScope(event.streamName);
  return TENANT_CATEGORIES.some((category) => name.startsWith(category)) ? tenant : null;
}
