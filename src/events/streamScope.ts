// Tenants: a tenant's streams are its own names behind `<tenant>~`, so no id of one tenant can reach another's stream.
// Unscoped names start with a fixed category word and '-'; tenant names hold no '-', so `<tenant>~` can never be
// the start of an unscoped name (`conversation-x~…` is the default tenant's key `x~…`, not a tenant's stream).

const SCOPED = /^([a-z0-9][a-z0-9_]{0,62})~/;

/** The stream `name` of `tenant`; the name itself for the default (unnamed) tenant. */
export function scopedStreamName(name: string, tenant: string | undefined): string {
  return tenant ? `${tenant}~${name}` : name;
}

/** Which tenant a stream belongs to ('' for the default one) and its name within the tenant. */
export function streamScope(streamName: string): { tenant: string; name: string } {
  const match = SCOPED.exec(streamName);
  return match ? { tenant: match[1]!, name: streamName.slice(match[0].length) } : { tenant: '', name: streamName };
}
