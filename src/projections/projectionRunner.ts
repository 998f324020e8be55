// Runs each projection from its stored position; rows and position commit in one transaction (exactly once).
import { EventEmitter } from 'node:events';
import type { DataSource, EntityManager } from 'typeorm';
import { quoteIdentifier } from '../database/migrate.js';
import { NotFoundError } from '../errors/ledgerError.js';
import type { EventStore, RecordedEvent } from '../events/eventStore.js';
import type { Logger } from '../logging/logger.js';
import { isParkable, type ParkedStream, ParkedStreams } from './parkedStreams.js';
import { type Projection, ProjectionApplyError } from './projection.js';
import type { ProjectionLease } from './projectionLease.js';
import { SharedPages } from './sharedPages.js';

/** Injection token of the ProjectionRunner. */
export const PROJECTIONS = Symbol('ProjectionRunner');

export type ProjectionState = 'starting' | 'catching_up' | 'live' | 'failed' | 'standby' | 'stopped';

export interface ProjectionStatus {
  name: string;
  position: number;
  headPosition: number;
  /** Events the projection has yet to apply, counted up to 10,000. */
  lagEvents: number;
  state: ProjectionState | string;
  ownedHere: boolean;
  lastError: string | null;
  failedPosition: number | null;
  /** Attempts in a row this instance's loop has failed (0 when it last succeeded): a stuck projection keeps counting. */
  consecutiveFailures: number;
  /** When this instance's loop first failed on the event it is stuck at; null while healthy. */
  failingSince: Date | null;
  /** Streams this projection went on without (oldest first, at most 100): their rows are stale until a rebuild. */
  parkedStreams: ParkedStream[];
  updatedAt: Date;
}

/** A projection's stored checkpoint: what its owner last wrote (`running`, `failed`, `rebuilding`), not what anyone runs now. */
export interface StoredProjectionStatus {
  name: string;
  position: number;
  headPosition: number;
  /** Events the projection has yet to apply, counted up to 10,000. */
  lagEvents: number;
  storedState: string;
  lastError: string | null;
  failedPosition: number | null;
  updatedAt: Date | null;
}

export interface ProjectionRunnerOptions {
  store: EventStore;
  dataSource: DataSource;
  schema: string;
  projections: readonly Projection[];
  lease: ProjectionLease;
  logger: Logger;
  /** Events per transaction when the projection is at the head of the log (default 500). */
  batchSize?: number;
  /** Events per transaction while the last read came back full, i.e. while catching up (default 4 × batchSize). */
  catchUpBatchSize?: number;
  /**
   * Events per transaction once a catch-up read came back full too, i.e. far behind the head (a new projector, a
   * restart after downtime, a bulk import, a rebuild). Default 2.5 × catchUpBatchSize, at most 10,000 (5,000 at the
   * service's defaults): per event the database spent about two thirds of the CPU it spends on 2,000-event batches
   * (docs/benchmarks.md), for transactions 2.5× as long. A smaller catch-up size makes it smaller too.
   */
  farBehindBatchSize?: number;
  /** How long an idle runner waits for an append signal before looking anyway. */
  idlePollMs?: number;
  /**
   * How long after an append the projections wait before reading it (default 0: at once), so that the appends of a
   * burst are applied as one batch: a batch costs a transaction per projection whatever its size.
   */
  wakeDelayMs?: number;
  /** Standby runners try to take ownership this often. */
  standbyPollMs?: number;
  maxRetryDelayMs?: number;
  /**
   * After this many failures in a row on one event that its own data caused, that event's stream is parked and the
   * projection goes on without it (default 0: never; the projection then stops at the event until it applies).
   */
  parkAfterFailures?: number;
}

/** The checkpoint moved under us (a rebuild, or another owner): reload instead of applying twice. */
class CheckpointMoved extends Error {}

const LAG_CAP = 10_000;

class ProjectionLoop {
  position = 0;
  state: ProjectionState = 'starting';
  lastError: string | null = null;
  failures = 0;
  failingSince: Date | null = null;
  /**
   * Reads in a row that came back full: more is waiting. After one the next read takes a catch-up batch, after two
   * or more a far-behind batch; 0 (a short read, a failure, a start) goes back to the batch at the head.
   */
  fullReads = 0;
  /**
   * `position` is the stored one as this loop last wrote or read it. Unknown at start and after a failure or a
   * moved checkpoint; a checkpoint moved by someone else is caught inside the next batch's transaction anyway.
   */
  positionKnown = false;
  /** Streams parked for this projection, read with the stored position: their events are passed over. */
  parked = new Set<string>();
  /** Rebuilds of this projection begun in this process: a failure seen before one parks nothing after it. */
  rebuilds = 0;
  /**
   * The stored count of targeted repairs (`refold`) and rebuilds as this loop last read it with the position: a batch
   * commits only while it is unchanged, so a batch read before either (events since rewritten) is read again after it.
   */
  repairs = 0;
  /** The event the last failure named, and how many failures in a row named it. */
  private failedAt: number | null = null;
  private failuresAtEvent = 0;
  /** Appends were announced since the last read began: the head may be past what that read saw. */
  private announced = false;
  running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake?: () => void;

  constructor(
    readonly projection: Projection,
    private readonly runner: ProjectionRunner,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loopDone;
    this.state = 'stopped';
  }

  /** New events were announced: wakes the loop if it sleeps, or has it read again after the batch in hand. */
  poke(): void {
    this.announced = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    const { options } = this.runner;
    while (this.running) {
      const rebuilds = this.rebuilds;
      try {
        if (!(await options.lease.tryAcquire(this.projection.name))) {
          this.state = 'standby';
          await this.sleep(options.standbyPollMs ?? 2_000);
          continue;
        }
        this.announced = false;
        await this.runner.applyNextBatch(this);
        this.failures = 0;
        this.failingSince = null;
        this.failedAt = null;
        this.failuresAtEvent = 0;
        // A full batch: more is waiting. Otherwise this read reached the head as it was when it began; an append since
        // then was announced, and without one the loop sleeps instead of reading an empty page to learn that.
        if (this.fullReads === 0 && !this.announced) {
          this.state = 'live';
          // A whole poll without an append: look at the stored position too (another instance may have rebuilt it).
          if ((await this.sleep(options.idlePollMs ?? 500)) === 'timed out') this.positionKnown = false;
        }
      } catch (error) {
        this.positionKnown = false;
        if (error instanceof CheckpointMoved) continue;
        if (await this.parkIfStuck(error, rebuilds)) continue;
        this.failures += 1;
        this.failingSince ??= new Date();
        this.lastError = error instanceof Error ? error.message : String(error);
        const delay = Math.min(options.maxRetryDelayMs ?? 30_000, 250 * 2 ** Math.min(this.failures, 10));
        options.logger.error(
          {
            projection: this.projection.name,
            position: this.position,
            failedPosition: (error as { position?: number }).position,
            attempt: this.failures,
            err: error,
            retryInMs: delay,
          },
          'projection failed to apply events; retrying without skipping',
        );
        await this.runner.recordFailure(this, this.lastError, (error as { position?: number }).position, rebuilds).catch(() => undefined);
        // Only now: whoever sees 'failed' here finds the error recorded too, where this owner could stamp it (see recordFailure).
        this.state = 'failed';
        await this.sleep(delay);
      }
    }
  }

  /** Parks the failing event's stream once the same event has failed `parkAfterFailures` times on its own data. */
  private async parkIfStuck(error: unknown, rebuilds: number): Promise<boolean> {
    const parkAfter = this.runner.options.parkAfterFailures ?? 0;
    if (!(error instanceof ProjectionApplyError) || parkAfter <= 0 || !isParkable(error)) {
      this.failedAt = null;
      this.failuresAtEvent = 0;
      return false;
    }
    this.failuresAtEvent = error.position === this.failedAt ? this.failuresAtEvent + 1 : 1;
    this.failedAt = error.position;
    if (this.failuresAtEvent < parkAfter) return false;
    try {
      await this.runner.parkStream(this, error, rebuilds);
    } catch (parkError) {
      if (parkError instanceof CheckpointMoved) return true;
      this.runner.options.logger.error({ projection: this.projection.name, err: parkError }, 'projection could not park a stream');
      return false;
    }
    this.failures = 0;
    this.failingSince = null;
    this.failedAt = null;
    this.failuresAtEvent = 0;
    return true;
  }

  private sleep(ms: number): Promise<'timed out' | 'woken'> {
    if (!this.running) return Promise.resolve('woken');
    return new Promise<'timed out' | 'woken'>((resolve) => {
      const timer = setTimeout(() => resolve('timed out'), ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve('woken');
      };
    }).finally(() => {
      this.wake = undefined;
    });
  }
}

export class ProjectionRunner {
  private readonly loops = new Map<string, ProjectionLoop>();
  private readonly progress = new EventEmitter();
  private readonly pages: SharedPages;
  private readonly checkpoints: string;
  private readonly parkedStreams: ParkedStreams;
  private unsubscribe?: () => void;
  private wakeTimer?: NodeJS.Timeout;

  constructor(readonly options: ProjectionRunnerOptions) {
    this.checkpoints = `${quoteIdentifier(options.schema)}.projection_checkpoints`;
    this.parkedStreams = new ParkedStreams(`${quoteIdentifier(options.schema)}.projection_parked_streams`);
    this.pages = new SharedPages(options.store);
    for (const projection of options.projections) this.loops.set(projection.name, new ProjectionLoop(projection, this));
    this.progress.setMaxListeners(0);
  }

  get projectionNames(): string[] {
    return [...this.loops.keys()];
  }

  async start(): Promise<void> {
    for (const name of this.loops.keys()) {
      await this.options.dataSource.query(`INSERT INTO ${this.checkpoints} (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [name]);
    }
    this.unsubscribe = this.options.store.onAppended(() => this.announceAppend());
    for (const loop of this.loops.values()) loop.start();
  }

  /** Wakes every loop, at once or once `wakeDelayMs` after the first of a burst of appends. */
  private announceAppend(): void {
    const delay = this.options.wakeDelayMs ?? 0;
    if (delay <= 0) {
      for (const loop of this.loops.values()) loop.poke();
      return;
    }
    this.wakeTimer ??= setTimeout(() => {
      this.wakeTimer = undefined;
      for (const loop of this.loops.values()) loop.poke();
    }, delay);
  }

  /** Stops after the batch in flight commits, so every projection rests at a consistent position. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    await Promise.all([...this.loops.values()].map((loop) => loop.stop()));
    await this.options.lease.releaseAll();
  }

  /** Reads the next batch after the stored position and applies it; returns how many events it applied. */
  async applyNextBatch(loop: ProjectionLoop): Promise<number> {
    if (!loop.positionKnown) {
      const { position: stored, repairs } = await this.storedCheckpoint(this.options.dataSource.manager, loop.projection.name, false);
      // Back to an earlier position (a rebuild, maybe after an erasure rewrote events) or a repair since (events were
      // rewritten in place): pages read before are stale.
      if (stored < loop.position || repairs !== loop.repairs) this.pages.clear();
      loop.position = stored;
      loop.repairs = repairs;
      loop.parked = await this.parkedStreams.load(this.options.dataSource.manager, loop.projection.name);
      loop.positionKnown = true;
    }
    const stored = loop.position;
    const fullReads = loop.fullReads;
    const wanted = this.batchSizeAfter(fullReads);
    if (fullReads > 0) await this.keepPace(loop, stored, wanted);
    loop.fullReads = 0;
    const batch = await this.pages.read(stored, wanted);
    if (batch.length === 0) return 0;
    // A retry after a failure stays 'failed' (for /ready and the admin view) until a batch commits.
    if (loop.failures === 0) loop.state = 'catching_up';
    try {
      await this.commitBatch(loop, stored, batch);
      loop.fullReads = batch.length === wanted ? fullReads + 1 : 0;
    } catch (error) {
      if (error instanceof CheckpointMoved) throw error;
      const failedAt = batch.findIndex((event) => event.position === (error as { position?: number }).position);
      // Commit what precedes the event that failed, so the projection rests exactly before it.
      if (failedAt > 0) await this.commitBatch(loop, stored, batch.slice(0, failedAt));
      // An error that names no event (a failed write of the whole batch): go one event at a time, so that the
      // projection rests just before the event that fails, and the error names it.
      if (failedAt < 0 && batch.length > 1) {
        await this.commitOneByOne(loop, stored, batch);
        return batch.length;
      }
      throw error;
    }
    return batch.length;
  }

  /**
   * Events the next read asks for after `fullReads` full reads in a row: the batch at the head, then (far behind, a
   * rebuild, a restart after downtime) bigger batches, fewer transactions and round trips per event.
   */
  private batchSizeAfter(fullReads: number): number {
    const batchSize = this.options.batchSize ?? 500;
    const catchUp = this.options.catchUpBatchSize ?? batchSize * 4;
    if (fullReads === 0) return batchSize;
    if (fullReads === 1) return catchUp;
    return this.options.farBehindBatchSize ?? Math.max(catchUp, Math.min(Math.round(catchUp * 2.5), 10_000));
  }

  /**
   * While catching up, a projection that is about to read a page no one has read waits for the projections behind
   * it to reach the pages kept, so that every page of a rebuild is read and parsed once for all of them: the fast
   * ones running ahead only took the thread from the slowest, whose time is the rebuild's. It waits only for a loop
   * strictly behind it that is catching up here and not failing, so the slowest never waits and a stuck one holds
   * nobody.
   */
  private async keepPace(loop: ProjectionLoop, position: number, wanted: number): Promise<void> {
    while (loop.running && !this.pages.has(position, wanted) && this.wouldDropUnread(loop, position, wanted)) await this.nextAdvance(100);
  }

  /** Whether reading a new page of `size` at `position` now would drop a kept page a projection behind it here has yet to read. */
  private wouldDropUnread(loop: ProjectionLoop, position: number, size: number): boolean {
    const behind = [...this.loops.values()].filter(
      (other) =>
        other !== loop &&
        other.running &&
        other.state === 'catching_up' &&
        other.failures === 0 &&
        other.position < position &&
        this.options.lease.holds(other.projection.name),
    );
    return behind.length > 0 && this.pages.wouldDropUnread(Math.min(...behind.map((other) => other.position)), size);
  }

  /** Resolves when any projection here commits a batch, or after `ms`. */
  private nextAdvance(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.progress.off('advanced', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.progress.on('advanced', done);
    });
  }

  /** Commits each event as its own batch until one fails, which then throws naming its event. */
  private async commitOneByOne(loop: ProjectionLoop, stored: number, batch: readonly RecordedEvent[]): Promise<void> {
    let position = stored;
    for (const event of batch) {
      await this.commitBatch(loop, position, [event]);
      position = event.position;
    }
  }

  private async commitBatch(loop: ProjectionLoop, stored: number, batch: readonly RecordedEvent[]): Promise<void> {
    const name = loop.projection.name;
    const last = batch[batch.length - 1]!;
    const applicable = loop.parked.size === 0 ? batch : batch.filter((event) => !loop.parked.has(event.streamName));
    const { appliesTo } = loop.projection;
    if (appliesTo && applicable.length === batch.length && !batch.some((event) => appliesTo.call(loop.projection, event))) {
      // No row to write (events of other streams' kinds, e.g. a burst of turns for the jobs projection): the
      // checkpoint moves alone, in one statement that checks it as the transaction would. Nothing is applied, so
      // nothing can be applied twice, and the row lock lasts as long as the statement.
      await this.moveCheckpoint(this.options.dataSource.manager, loop, stored, last.position);
      loop.position = last.position;
      loop.lastError = null;
      this.progress.emit('advanced', name, last.position);
      return;
    }
    await this.options.dataSource.transaction(async (manager) => {
      // First, so the row stays locked for the whole batch as before: another owner's batch waits here, then finds
      // the checkpoint moved and rolls back; a rebuild waits for this batch to commit.
      await this.moveCheckpoint(manager, loop, stored, last.position);
      if (applicable.length < batch.length)
        await this.parkedStreams.noteSkipped(
          manager,
          name,
          batch.filter((event) => loop.parked.has(event.streamName)),
        );
      try {
        if (applicable.length > 0) await loop.projection.applyBatch(applicable, manager);
      } catch (error) {
        // One event alone: the error is that event's, whatever it says.
        throw batch.length === 1 && !(error instanceof ProjectionApplyError) ? new ProjectionApplyError(name, batch[0]!, error) : error;
      }
    });
    loop.position = last.position;
    loop.lastError = null;
    this.progress.emit('advanced', name, last.position);
  }

  /**
   * Moves the checkpoint from `from` to `to` and locks its row until the transaction ends, in one statement; throws
   * CheckpointMoved, changing nothing, when the stored position is not `from` (a rebuild, or another owner's batch)
   * or a repair was made since the loop read it. A batch that waited for another's lock on the row compares with
   * what that transaction committed.
   */
  private async moveCheckpoint(manager: EntityManager, loop: ProjectionLoop, from: number, to: number): Promise<void> {
    const rows: Array<{ moved: number }> = await manager.query(
      `WITH moved AS (
         UPDATE ${this.checkpoints} SET position = $3, state = 'running', last_error = NULL, failed_position = NULL, updated_at = now()
         WHERE name = $1 AND position = $2 AND repairs = $4 RETURNING 1
       ) SELECT count(*)::int AS moved FROM moved`,
      [loop.projection.name, from, to, loop.repairs],
    );
    if (Number(rows[0]?.moved ?? 0) === 0) throw new CheckpointMoved();
  }

  /**
   * Moves the projection past an event that keeps failing on its own data, parking its stream: recorded with the
   * checkpoint in one transaction, logged as an error, listed in the status; later events of the stream are
   * passed over and counted until a rebuild, so no row of that stream is ever built from part of its history.
   */
  async parkStream(loop: ProjectionLoop, error: ProjectionApplyError, rebuildsBefore = loop.rebuilds): Promise<void> {
    const name = loop.projection.name;
    await this.options.dataSource.transaction(async (manager) => {
      // The events before the failing one committed, so the checkpoint rests just before it, where this loop put it.
      await this.moveCheckpoint(manager, loop, loop.position, error.position);
      // A rebuild begun since the failure (in this process; it sets the loop's position back to 0, so the check
      // above could match the position it stored) makes the failure stale: the replay applies the event anew.
      if (loop.rebuilds !== rebuildsBefore) throw new CheckpointMoved();
      await this.parkedStreams.park(manager, name, error);
    });
    loop.parked.add(error.streamName);
    loop.position = error.position;
    loop.lastError = null;
    this.options.logger.error(
      { projection: name, streamName: error.streamName, position: error.position, err: error },
      'projection parked a stream it cannot apply and goes on without it; the stream stays stale until a rebuild',
    );
    this.progress.emit('advanced', name, error.position);
  }

  /** The parked streams among these, for reads that must not answer from a stale row. */
  async parkedAmong(name: string, streamNames: readonly string[]): Promise<ParkedStream[]> {
    this.requireLoop(name);
    return this.parkedStreams.list(this.options.dataSource.manager, name, streamNames);
  }

  /**
   * Stamps a loop's failure on its checkpoint (`failed`, the error, the failing event), checked as a move is: only while
   * this instance holds the lease, the stored position is where this loop left it, and no rebuild began in this process
   * since the failure. So a former owner (its lease lost, another owner's batches moved the checkpoint on) or a loop
   * from before a rebuild never marks failed a checkpoint someone else runs. Answers whether it stamped.
   */
  async recordFailure(loop: ProjectionLoop, message: string, failedPosition: number | undefined, rebuildsBefore = loop.rebuilds): Promise<boolean> {
    const name = loop.projection.name;
    if (!this.options.lease.holds(name) || loop.rebuilds !== rebuildsBefore) return false;
    try {
      await this.options.dataSource.transaction(async (manager) => {
        const rows: Array<{ stamped: number }> = await manager.query(
          `WITH stamped AS (
             UPDATE ${this.checkpoints} SET state = 'failed', last_error = $2, failed_position = $3, updated_at = now()
             WHERE name = $1 AND position = $4 RETURNING 1
           ) SELECT count(*)::int AS stamped FROM stamped`,
          [name, message.slice(0, 2_000), failedPosition ?? null, loop.position],
        );
        if (Number(rows[0]?.stamped ?? 0) === 0) throw new CheckpointMoved();
        // As for a park: a rebuild begun meanwhile sets the loop's position back to 0, so the check above could match
        // the checkpoint it reset; the failure is stale, and the replay meets that event anew.
        if (loop.rebuilds !== rebuildsBefore) throw new CheckpointMoved();
      });
    } catch (error) {
      if (error instanceof CheckpointMoved) return false;
      throw error;
    }
    return true;
  }

  /**
   * Empties the projection's tables and sets it back to position 0. Whichever instance owns it
   * notices the moved checkpoint inside its next transaction and replays from the start.
   */
  async rebuild(name: string): Promise<ProjectionStatus> {
    const loop = this.requireLoop(name);
    loop.rebuilds += 1;
    const schema = quoteIdentifier(this.options.schema);
    await this.options.dataSource.transaction(async (manager) => {
      await this.storedPosition(manager, name, true);
      for (const table of loop.projection.tables) await manager.query(`TRUNCATE ${schema}.${quoteIdentifier(table)}`);
      // A rebuild tries every parked stream again (after a fix, it applies; if not, it is parked again).
      await this.parkedStreams.clear(manager, name);
      await manager.query(
        // Counted like a repair: a batch another instance read from position 0 before this reset (from events an
        // erasure has since rewritten) finds the count moved and reads again, where the position alone would match.
        `UPDATE ${this.checkpoints} SET position = 0, repairs = repairs + 1, state = 'rebuilding', last_error = NULL, failed_position = NULL, updated_at = now() WHERE name = $1`,
        [name],
      );
    });
    this.options.logger.info({ projection: name }, 'projection reset to position 0 for rebuild');
    this.pages.clear();
    loop.position = 0;
    loop.parked = new Set();
    // A batch in flight may still set its own position when it ends: the loop reads the stored one next.
    loop.positionKnown = false;
    loop.poke();
    return this.status(name);
  }

  /**
   * Builds a projection's rows of these streams again from their events in the log, after the events were rewritten
   * in place (retention), instead of a rebuild: the rest of the read model stays, and so does its checkpoint. Each
   * batch of streams is one transaction that holds the checkpoint row, as a batch of the projection does, so the
   * projection's own batches come before or after it: the refold folds the streams' events up to the checkpoint, and
   * the projection applies those after it. It counts a repair on the row, so a batch read before it (from events since
   * rewritten) is read again instead of committed. Parked streams stay as they are (stale until a rebuild). Answers the
   * streams refolded.
   */
  async refold(name: string, streamNames: readonly string[], streamsPerTransaction = 50): Promise<number> {
    const loop = this.requireLoop(name);
    if (!loop.projection.forgetStreams) throw new Error(`${name} cannot refold streams; rebuild it instead`);
    let refolded = 0;
    for (let at = 0; at < streamNames.length; at += streamsPerTransaction) {
      refolded += await this.refoldBatch(loop, [...new Set(streamNames.slice(at, at + streamsPerTransaction))]);
      this.pages.clear();
      loop.positionKnown = false;
    }
    if (streamNames.length > 0) this.options.logger.info({ projection: name, streams: refolded }, 'projection refolded streams rewritten in place');
    return refolded;
  }

  private async refoldBatch(loop: ProjectionLoop, streamNames: readonly string[]): Promise<number> {
    const { projection } = loop;
    for (let attempt = 1; ; attempt++) {
      // Read before the transaction (one PGlite connection serves both databases): every event up to `visible` is in it.
      const visible = await this.options.store.headPosition();
      const read = (await this.options.store.readStreamTails(streamNames.map((streamName) => ({ streamName, fromRevision: 0 })))).flatMap(
        (stream) => stream ?? [],
      );
      const refolded = await this.options.dataSource.transaction(async (manager) => {
        const { position } = await this.storedCheckpoint(manager, projection.name, true);
        // The projection went past what the read saw: read again.
        if (position > visible) return null;
        const parked = new Set((await this.parkedStreams.list(manager, projection.name, streamNames)).map((stream) => stream.streamName));
        const streams = streamNames.filter((streamName) => !parked.has(streamName));
        await projection.forgetStreams!(streams, manager);
        // The events up to the checkpoint, which the projection applied; those after it are the projection's to apply.
        const events = read
          .filter((event) => event.position <= position && !parked.has(event.streamName))
          .sort((left, right) => left.position - right.position);
        if (events.length > 0) await projection.applyBatch(events, manager);
        await manager.query(`UPDATE ${this.checkpoints} SET repairs = repairs + 1, updated_at = now() WHERE name = $1`, [projection.name]);
        return streams.length;
      });
      if (refolded !== null) return refolded;
      if (attempt >= 20) throw new Error(`${projection.name} moved on during each of 20 refolds; try again`);
    }
  }

  /** What this instance's loops are doing, without touching the database (for /ready). */
  localStates(): Array<{ name: string; state: ProjectionState; lastError: string | null; consecutiveFailures: number }> {
    return [...this.loops.values()].map((loop) => ({
      name: loop.projection.name,
      state: loop.state,
      lastError: loop.lastError,
      consecutiveFailures: loop.failures,
    }));
  }

  async statuses(): Promise<ProjectionStatus[]> {
    return Promise.all(this.projectionNames.map((name) => this.status(name)));
  }

  async status(name: string): Promise<ProjectionStatus> {
    const loop = this.requireLoop(name);
    const stored = await this.storedStatus(name);
    // A runner that was never started (the CLI) runs nothing, whatever its lease would allow.
    const ownedHere = loop.running && this.options.lease.holds(name);
    // The row says what the owner last wrote; this instance knows better for the projections it runs.
    const state = ownedHere
      ? loop.state === 'live' && stored.lagEvents > 0
        ? 'catching_up'
        : loop.state
      : stored.storedState === 'running'
        ? 'running elsewhere'
        : stored.storedState;
    return {
      name,
      position: stored.position,
      headPosition: stored.headPosition,
      lagEvents: stored.lagEvents,
      state,
      ownedHere,
      lastError: stored.lastError,
      failedPosition: stored.failedPosition,
      consecutiveFailures: ownedHere ? loop.failures : 0,
      failingSince: ownedHere ? loop.failingSince : null,
      parkedStreams: await this.parkedStreams.list(this.options.dataSource.manager, name),
      updatedAt: stored.updatedAt ?? new Date(),
    };
  }

  /** What the database holds for a projection, whoever runs it: for a process that runs none (the CLI). */
  async storedStatus(name: string): Promise<StoredProjectionStatus> {
    this.requireLoop(name);
    const rows = await this.options.dataSource.query(
      `SELECT position, state, last_error, failed_position, updated_at FROM ${this.checkpoints} WHERE name = $1`,
      [name],
    );
    const row = rows[0] ?? { position: 0, state: 'never run', last_error: null, failed_position: null, updated_at: null };
    const position = Number(row.position);
    const [headPosition, lagEvents] = await Promise.all([this.options.store.headPosition(), this.options.store.countAfter(position, LAG_CAP)]);
    return {
      name,
      position,
      headPosition,
      lagEvents,
      storedState: row.state,
      lastError: row.last_error ?? null,
      failedPosition: row.failed_position === null || row.failed_position === undefined ? null : Number(row.failed_position),
      updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
    };
  }

  async storedStatuses(): Promise<StoredProjectionStatus[]> {
    return Promise.all(this.projectionNames.map((name) => this.storedStatus(name)));
  }

  /** True once every named projection has applied everything up to `position`; false after the timeout. */
  async waitForPosition(names: readonly string[], position: number, timeoutMs: number): Promise<boolean> {
    for (const name of names) this.requireLoop(name);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.reached(names, position)) return true;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await this.nextAdvance(Math.min(remaining, 50));
    }
  }

  private async reached(names: readonly string[], position: number): Promise<boolean> {
    const remote: string[] = [];
    for (const name of names) {
      const loop = this.loops.get(name)!;
      if (this.options.lease.holds(name)) {
        if (loop.position < position) return false;
      } else {
        remote.push(name);
      }
    }
    if (remote.length === 0) return true;
    const rows: Array<{ position: string | number }> = await this.options.dataSource.query(`SELECT position FROM ${this.checkpoints} WHERE name = ANY($1)`, [
      remote,
    ]);
    return rows.length === remote.length && rows.every((row) => Number(row.position) >= position);
  }

  private async storedPosition(manager: EntityManager, name: string, lock: boolean): Promise<number> {
    return (await this.storedCheckpoint(manager, name, lock)).position;
  }

  private async storedCheckpoint(manager: EntityManager, name: string, lock: boolean): Promise<{ position: number; repairs: number }> {
    const rows = await manager.query(`SELECT position, repairs FROM ${this.checkpoints} WHERE name = $1${lock ? ' FOR UPDATE' : ''}`, [name]);
    return { position: Number(rows[0]?.position ?? 0), repairs: Number(rows[0]?.repairs ?? 0) };
  }

  private requireLoop(name: string): ProjectionLoop {
    const loop = this.loops.get(name);
    if (!loop) throw new NotFoundError('PROJECTION_NOT_FOUND', `no projection named ${name}`, { name, known: this.projectionNames });
    return loop;
  }
}
