// Counters, gauges and histograms keyed by label values: the in-memory side of the Prometheus exposition.

export type Labels<Name extends string> = Readonly<Record<Name, string>>;

export interface Sample {
  /** The family's name plus a suffix for histograms (`_bucket`, `_sum`, `_count`). */
  name: string;
  labels: ReadonlyArray<readonly [string, string]>;
  value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  samples(): Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

abstract class LabelledFamily<Name extends string, Value> implements MetricFamily {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  // Keyed by the label values in labelNames order, so {a, b} and {b, a} are one series.
  protected readonly series = new Map<string, { labels: Array<readonly [string, string]>; value: Value }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly Name[],
  ) {
    if (!METRIC_NAME.test(name)) throw new Error(`metric name ${name} is not valid`);
    for (const label of labelNames) if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`label name ${label} is not valid`);
  }

  protected entry(labels: Labels<Name>, initial: () => Value): { value: Value } {
    const values = this.labelNames.map((label) => labels[label]);
    const key = JSON.stringify(values);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: this.labelNames.map((label, index) => [label, values[index]!] as const), value: initial() };
      this.series.set(key, entry);
    }
    return entry;
  }

  /** Forgets every series: for families refilled at each scrape, so a projection or state that went away is not reported forever. */
  clear(): void {
    this.series.clear();
  }

  abstract samples(): Sample[];
}

/** Only goes up: `inc` for events counted here, `setTotal` for totals something else keeps (the cache's counts). */
export class Counter<Name extends string = never> extends LabelledFamily<Name, number> {
  readonly type = 'counter';

  inc(labels: Labels<Name>, by = 1): void {
    if (by < 0) throw new Error(`counter ${this.name} cannot go down`);
    this.entry(labels, () => 0).value += by;
  }

  /**
   * A series at 0 before anything happened, so `rate()` and alerts see 0 instead of no data. Labels whose values are
   * open-ended (routes, platforms) are left empty in a seed: PromQL reads an empty label as absent, so sums include it.
   */
  zero(labels: Labels<Name>): this {
    this.entry(labels, () => 0);
    return this;
  }

  setTotal(labels: Labels<Name>, total: number): void {
    this.entry(labels, () => 0).value = total;
  }

  value(labels: Labels<Name>): number {
    return this.entry(labels, () => 0).value;
  }

  samples(): Sample[] {
    return [...this.series.values()].map(({ labels, value }) => ({ name: this.name, labels, value }));
  }
}

export class Gauge<Name extends string = never> extends LabelledFamily<Name, number> {
  readonly type = 'gauge';

  set(labels: Labels<Name>, value: number): void {
    this.entry(labels, () => 0).value = value;
  }

  samples(): Sample[] {
    return [...this.series.values()].map(({ labels, value }) => ({ name: this.name, labels, value }));
  }
}

interface HistogramValue {
  /** Per bucket, not cumulative: cumulated when exposed. */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<Name extends string = never> extends LabelledFamily<Name, HistogramValue> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly Name[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
    if ((labelNames as readonly string[]).includes('le')) throw new Error('a histogram cannot have a label named le');
    if (buckets.length === 0 || buckets.some((bound, index) => index > 0 && bound <= buckets[index - 1]!))
      throw new Error(`histogram ${name}: buckets must increase`);
  }

  observe(labels: Labels<Name>, value: number): void {
    const entry = this.entry(labels, () => ({ counts: this.buckets.map(() => 0), sum: 0, count: 0 })).value;
    const bucket = this.buckets.findIndex((bound) => value <= bound);
    if (bucket >= 0) entry.counts[bucket]! += 1;
    entry.sum += value;
    entry.count += 1;
  }

  samples(): Sample[] {
    const samples: Sample[] = [];
    for (const { labels, value } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += value.counts[index]!;
        samples.push({ name: `${this.name}_bucket`, labels: [...labels, ['le', String(bound)]], value: cumulative });
      });
      samples.push({ name: `${this.name}_bucket`, labels: [...labels, ['le', '+Inf']], value: value.count });
      samples.push({ name: `${this.name}_sum`, labels, value: value.sum });
      samples.push({ name: `${this.name}_count`, labels, value: value.count });
    }
    return samples;
  }
}
