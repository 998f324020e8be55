// The Prometheus text exposition format (version 0.0.4): HELP and TYPE lines, then one line per sample.
import type { MetricFamily } from './metricFamilies.js';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabelValue = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/** Families without samples still get their HELP and TYPE, so a scraper sees every series the service can have. */
export function formatExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples()) {
      const labels = sample.labels.length === 0 ? '' : `{${sample.labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
      lines.push(`${sample.name}${labels} ${formatSampleValue(sample.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
