// The skeleton every background loop of an instance shares (the reset sweep, the runtime watchdog, the job ticker,
// scheduled prune and retention, the followers of the erasure and retention logs):
// runs one at a time, a timer that waits `intervalMs` after one run ends before the next, a start-up run in the
// background before the first timed one, and a stop that waits for the run in progress.

export interface BackgroundLoopOptions {
  /** From the end of one timed run to the start of the next; 0 starts no timer (runs happen only when asked). */
  intervalMs: number;
  /** A timed run that failed: logged by the owner; the next run retries. */
  onError(error: unknown): void;
}

export class BackgroundLoop {
  private timer?: NodeJS.Timeout;
  private stopping = false;
  private queue: Promise<unknown> = Promise.resolve();
  private startup: Promise<unknown> = Promise.resolve();

  /** `timedRun` is the owner's run-now method, which goes through serially() itself. */
  constructor(
    private readonly options: BackgroundLoopOptions,
    private readonly timedRun: () => Promise<unknown>,
  ) {}

  /** Whether stop() was called: a run in progress checks this between its steps to end early. */
  get stopped(): boolean {
    return this.stopping;
  }

  /**
   * Runs `first` (a start-up run; it handles its own failure) in the background, so it does not hold up serving
   * requests, then starts the timer. Returns `first`'s promise.
   */
  start<T>(first?: () => Promise<T>): Promise<T | undefined> {
    const startup = first ? first() : Promise.resolve(undefined);
    this.startup = startup.finally(() => this.scheduleNext());
    return startup;
  }

  /** `run` after any run of this loop in progress: runs of one instance never overlap. */
  serially<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** No more timed runs; resolves once the start-up run and the run in progress have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.startup.catch(() => undefined);
    await this.queue;
  }

  private scheduleNext(): void {
    if (this.stopping || this.options.intervalMs === 0) return;
    this.timer = setTimeout(() => {
      this.timedRun()
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => this.scheduleNext());
    }, this.options.intervalMs);
  }
}
