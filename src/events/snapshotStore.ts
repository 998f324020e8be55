// Snapshots of folded stream state: a disposable cache beside the event store, never a source of truth.

export interface StreamSnapshot {
  streamName: string;
  /** The state's shape; a snapshot of another version is ignored (and replaced by the next one written). */
  version: string;
  /** Revision of the last event folded into `state`. */
  revision: number;
  /** Global position of that event: a load checks the event there is still that one before trusting the snapshot. */
  position: number;
  state: unknown;
}

export interface SnapshotStore {
  /** The stream's snapshot of this version; with `atOrBefore`, only one not past that revision. */
  read(streamName: string, version: string, atOrBefore?: number): Promise<StreamSnapshot | undefined>;
  /** Keeps one snapshot per stream: the newest revision wins, whatever order writes arrive in. */
  write(snapshot: StreamSnapshot): Promise<void>;
  delete(streamName: string): Promise<void>;
}

/** A decider whose state may be snapshotted says so by naming its state's version. */
export interface Snapshottable {
  readonly snapshotVersion: string;
}

export function snapshotVersionOf(decider: object): string | undefined {
  const version = (decider as Partial<Snapshottable>).snapshotVersion;
  return typeof version === 'string' ? version : undefined;
}
