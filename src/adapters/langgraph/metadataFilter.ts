// `list({ filter })`: a checkpoint's metadata holds every key of the filter, as PostgreSQL's jsonb containment (`@>`) decides.

/** Whether `value` contains `wanted`: equal scalars; objects key by key; arrays each wanted element somewhere in it. */
function contains(value: unknown, wanted: unknown): boolean {
  if (wanted === null || typeof wanted !== 'object') return value === wanted;
  if (Array.isArray(wanted)) return Array.isArray(value) && wanted.every((element) => value.some((candidate) => contains(candidate, element)));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(wanted).every(([key, inner]) => contains((value as Record<string, unknown>)[key], inner));
}

export function metadataContains(metadata: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return contains(metadata, filter);
}
