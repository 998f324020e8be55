// Injection tokens of what erasure needs beyond the shared providers.

/** The rewriter of the event log; null on EventStoreDB, whose events cannot be rewritten in place. */
export const EVENT_REDACTION = Symbol('EventRedaction');
export const ERASURE_SNAPSHOTS = Symbol('ErasureSnapshots');
