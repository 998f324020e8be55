// One read of the log for every projection at the same position: the projections of a runner read the same pages
// (a rebuild starts them all at 0), and reading and parsing a page cost as much as applying it.
import type { EventStore, RecordedEvent } from '../events/eventStore.js';

/** Full pages kept for projections that follow: 16 × 500 events is a few MiB. */
const KEPT_PAGES = 16;
/** And at most this many events in them (by page size): 16 catch-up pages of 2,000, or 6 far-behind pages of 5,000. */
const KEPT_EVENTS = 32_000;

export class SharedPages {
  /** By fromPosition, oldest first. A full page never changes; a short one (the live tail) is shared only while in flight. */
  private readonly pages = new Map<number, { maxCount: number; events: Promise<RecordedEvent[]> }>();

  constructor(private readonly store: EventStore) {}

  /**
   * The events after `fromPosition`, at most `maxCount`, as `store.readAll` answers. A full page is final: every
   * position below the last one it holds is settled (the store reads only below the oldest open transaction).
   */
  read(fromPosition: number, maxCount: number): Promise<RecordedEvent[]> {
    const page = this.pages.get(fromPosition);
    if (page && page.maxCount === maxCount) return page.events;
    const events = this.store.readAll({ fromPosition, maxCount });
    const entry = { maxCount, events };
    this.pages.set(fromPosition, entry);
    const forget = () => {
      if (this.pages.get(fromPosition) === entry) this.pages.delete(fromPosition);
    };
    events.then((read) => read.length < maxCount && forget(), forget);
    while (this.pages.size > 1 && (this.pages.size > KEPT_PAGES || this.keptEvents() > KEPT_EVENTS)) this.pages.delete(this.pages.keys().next().value!);
    return events;
  }

  /** Whether a read of this page would be answered from memory. */
  has(fromPosition: number, maxCount: number): boolean {
    return this.pages.get(fromPosition)?.maxCount === maxCount;
  }

  /**
   * Whether reading a new page of `size` events now would drop a kept page that a projection at `position` has yet
   * to read (the oldest kept page is not behind it): that projection would then read and parse it again.
   */
  wouldDropUnread(position: number, size: number): boolean {
    if (this.pages.size === 0 || (this.pages.size < KEPT_PAGES && this.keptEvents() + size <= KEPT_EVENTS)) return false;
    return this.pages.keys().next().value! >= position;
  }

  private keptEvents(): number {
    let events = 0;
    for (const page of this.pages.values()) events += page.maxCount;
    return events;
  }

  /** After events were rewritten in place (erasure) or a projection went back to 0: nothing read before is used again. */
  clear(): void {
    this.pages.clear();
  }
}
