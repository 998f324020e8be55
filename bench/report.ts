// Every bench figure as one row: the value, the same-run baseline it is a ratio of, and the issue's target with a verdict.
import { renderTable } from './measure.js';

export interface Verdict {
  /** The target as the issue states it, e.g. `≥ 70% of baseline`. */
  target: string;
  met: boolean;
  /** By how much: `+4 pts`, `missed by 30%`. */
  margin: string;
}

export interface Figure {
  part: string;
  backend: string;
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number };
  /** How the figure compares with its baseline: value / baseline unless the part says otherwise. */
  ratio?: number;
  /** `share`: a percentage of the baseline (throughput); `times`: a multiple of it (latency, cost, growth). */
  ratioStyle?: 'share' | 'times';
  verdict?: Verdict;
  /** Anything a reader needs to interpret the row (e.g. the number of errors). */
  note?: string;
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(0)}%`;
const times = (ratio: number) => `${ratio.toFixed(2)}×`;

/** The ratio must reach `min` (a share of the baseline, e.g. 0.7). */
export function atLeastShare(ratio: number, min: number, of = 'baseline'): Verdict {
  const points = Math.round((ratio - min) * 100);
  return { target: `≥ ${percent(min)} of ${of}`, met: ratio >= min, margin: points >= 0 ? `+${points} pts` : `missed by ${-points} pts` };
}

/** The ratio must stay at or under `max` (a multiple of the baseline, e.g. 1.5 or 10). */
export function atMostTimes(ratio: number, max: number, of = 'baseline'): Verdict {
  return {
    target: `≤ ${max}× ${of}`,
    met: ratio <= max,
    margin: ratio <= max ? `${times(ratio)}` : `missed: ${times(ratio)}, ${percent(ratio / max - 1)} over`,
  };
}

/** The ratio must reach `min` as a multiple of the baseline (e.g. 100× another system's rate). */
export function atLeastTimes(ratio: number, min: number, of = 'baseline'): Verdict {
  return {
    target: `≥ ${min}× ${of}`,
    met: ratio >= min,
    margin: ratio >= min ? `${times(ratio)}` : `missed: ${times(ratio)}, ${percent(1 - ratio / min)} short`,
  };
}

export function atLeastValue(value: number, min: number, unit: string): Verdict {
  return {
    target: `≥ ${formatNumber(min)} ${unit}`,
    met: value >= min,
    margin: value >= min ? `+${percent(value / min - 1)}` : `missed by ${percent(1 - value / min)}`,
  };
}

export function atMostValue(value: number, max: number, unit: string): Verdict {
  return {
    target: `≤ ${formatNumber(max)} ${unit}`,
    met: value <= max,
    margin: value <= max ? `${percent(value / max)} of the limit` : `missed: ${percent(value / max - 1)} over`,
  };
}

export function exactly(met: boolean, target: string, detail: string): Verdict {
  return { target, met, margin: detail };
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function renderFigures(figures: readonly Figure[]): string {
  const header = ['part', 'backend', 'figure', 'value', 'baseline (same run)', 'ratio', 'target', 'verdict'];
  const rows = figures.map((figure) => [
    figure.part,
    figure.backend,
    figure.name,
    `${formatNumber(figure.value)} ${figure.unit}`,
    figure.baseline ? `${figure.baseline.name}: ${formatNumber(figure.baseline.value)}` : '',
    figure.ratio === undefined ? '' : figure.ratioStyle === 'times' ? times(figure.ratio) : percent(figure.ratio),
    figure.verdict?.target ?? '',
    figure.verdict ? `${figure.verdict.met ? 'met' : 'MISSED'} (${figure.verdict.margin})${figure.note ? `; ${figure.note}` : ''}` : (figure.note ?? ''),
  ]);
  return renderTable([header, ...rows], ['left', 'left', 'left', 'right', 'right', 'right', 'left', 'left']);
}
