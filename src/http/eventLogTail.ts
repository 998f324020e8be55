// One reader of the log's tail per process, fanning each new event out to every live event stream: an idle stream
// costs a listener, not a subscription polling the database of its own.
import type { EventStore, RecordedEvent, Subscription } from '../events/eventStore.js';
import type { Logger } from '../logging/logger.js';

export interface TailListener {
  /** Called synchronously, in log order, for each event after the position attach answered. Must not block. */
  event(event: RecordedEvent): void;
  /** The tail's read failed: no more events will come; the stream should end so its client reconnects. */
  ended(): void;
}

export class EventLogTail {
  private readonly listeners = new Set<TailListener>();
  private subscription?: Subscription;
  private starting?: Promise<void>;
  /** Position of the last event handed to the listeners. */
  private position = 0;

  constructor(
    private readonly store: EventStore,
    private readonly logger: Logger,
  ) {}

  /** Resolves with the position after which `listener` gets every event, in order, until detached. */
  async attach(listener: TailListener): Promise<number> {
    await this.start();
    // Same tick as the position is read: no event can fall between the two.
    this.listeners.add(listener);
    return this.position;
  }

  detach(listener: TailListener): void {
    this.listeners.delete(listener);
    // Nobody listening: nothing to poll the database for.
    if (this.listeners.size === 0 && this.subscription) {
      const subscription = this.subscription;
      this.subscription = undefined;
      void subscription.stop();
    }
  }

  get listening(): number {
    return this.listeners.size;
  }

  async close(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }

  private start(): Promise<void> {
    if (this.subscription) return Promise.resolve();
    this.starting ??= (async () => {
      try {
        const head = await this.store.headPosition();
        this.position = head;
        const subscription = this.store.subscribe(
          (event) => {
            this.position = event.position;
            for (const listener of this.listeners) listener.event(event);
          },
          { fromPosition: head },
        );
        this.subscription = subscription;
        void subscription.done.then(() => {
          if (this.subscription !== subscription) return;
          // A read failed: every stream ends (its client resumes with Last-Event-ID); the next attach starts afresh.
          this.subscription = undefined;
          this.logger.warn({ listeners: this.listeners.size }, 'event log tail ended by a failed read; its streams end and their clients reconnect');
          for (const listener of [...this.listeners]) listener.ended();
          this.listeners.clear();
        });
      } finally {
        this.starting = undefined;
      }
    })();
    return this.starting;
  }
}
