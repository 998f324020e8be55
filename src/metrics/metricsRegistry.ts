// A registry of metric families plus collectors that refresh scrape-time figures (projection lag, cache size) before each exposition.
import { Counter, Gauge, Histogram, type Labels, type MetricFamily } from './metricFamilies.js';
import { formatExposition } from './prometheusText.js';

export type Collector = () => void | Promise<void>;

export class MetricsRegistry {
  private readonly families = new Map<string, MetricFamily>();
  private readonly collectors: Array<{ name: string; collect: Collector }> = [];
  private readonly collectorFailures: Counter<'collector'>;

  constructor() {
    this.collectorFailures = this.counter(
      'ledger_metrics_collector_failures_total',
      'Scrapes where a collector failed (its figures are then the previous ones)',
      ['collector'],
    );
  }

  /** A counter without labels starts with its 0 sample; a labelled one gets its zeros from `Counter.zero`. */
  counter<Name extends string = never>(name: string, help: string, labelNames: readonly Name[] = []): Counter<Name> {
    const counter = this.register(new Counter<Name>(name, help, labelNames));
    if (labelNames.length === 0) counter.zero({} as Labels<Name>);
    return counter;
  }

  gauge<Name extends string = never>(name: string, help: string, labelNames: readonly Name[] = []): Gauge<Name> {
    return this.register(new Gauge<Name>(name, help, labelNames));
  }

  histogram<Name extends string = never>(name: string, help: string, labelNames: readonly Name[], buckets: readonly number[]): Histogram<Name> {
    return this.register(new Histogram<Name>(name, help, labelNames, buckets));
  }

  /** Runs at every scrape, before the exposition is written. */
  onCollect(name: string, collect: Collector): void {
    this.collectors.push({ name, collect });
    this.collectorFailures.zero({ collector: name });
  }

  /**
   * A failing collector (the read-model database is down) must not take the other figures with it: those are
   * exactly what an operator needs then. Its failure is counted instead.
   */
  async exposition(): Promise<string> {
    await Promise.all(
      this.collectors.map(async ({ name, collect }) => {
        try {
          await collect();
        } catch {
          this.collectorFailures.inc({ collector: name });
        }
      }),
    );
    return formatExposition([...this.families.values()]);
  }

  private register<Family extends MetricFamily>(family: Family): Family {
    if (this.families.has(family.name)) throw new Error(`metric ${family.name} is registered twice`);
    this.families.set(family.name, family);
    return family;
  }
}
