// The maxTokens cut: the oldest units go first, a call never without its results, the system text never.
import { estimatedUnitTokens } from './tokenEstimate.js';
import type { WindowUnit } from './windowHistory.js';

export interface WindowCut {
  units: WindowUnit[];
  estimatedTokens: number;
  /** Stored messages cut (synthetic results are not counted) and their estimated tokens. */
  cut: { messages: number; estimatedTokens: number };
  /** False when even the newest turn alone is over maxTokens: it is kept, since a window with no turn is no request. */
  withinBudget: boolean;
}

const isSystem = (unit: WindowUnit) => unit.entries[0]!.kind === 'system';
const storedMessages = (unit: WindowUnit) => unit.entries.filter((entry) => entry.index !== null).length;

/**
 * Keeps every system unit and the newest other units that fit in `maxTokens`. The kept part starts at a user message
 * when the history has one (a window never opens mid-turn, and Anthropic and Gemini want a user turn first).
 */
export function cutWindow(units: WindowUnit[], maxTokens: number | undefined): WindowCut {
  const tokens = units.map(estimatedUnitTokens);
  const total = tokens.reduce((sum, value) => sum + value, 0);
  const systemTokens = units.reduce((sum, unit, at) => sum + (isSystem(unit) ? tokens[at]! : 0), 0);
  const conversation = units.map((_, at) => at).filter((at) => !isSystem(units[at]!));
  const noCut = { units, estimatedTokens: total, cut: { messages: 0, estimatedTokens: 0 } };
  if (maxTokens === undefined || total <= maxTokens || conversation.length === 0)
    return { ...noCut, withinBudget: maxTokens === undefined || total <= maxTokens };

  const hasUser = conversation.some((at) => units[at]!.entries[0]!.kind === 'user');
  const starts = conversation.filter((at, order) => order === 0 || !hasUser || units[at]!.entries[0]!.kind === 'user');
  // Walk back from the newest unit while the suffix fits; the earliest start reached is the window's start, else the newest start.
  const startSet = new Set(starts);
  let start = starts.at(-1)!;
  let suffix = systemTokens;
  for (let order = conversation.length - 1; order >= 0; order--) {
    const at = conversation[order]!;
    suffix += tokens[at]!;
    if (suffix > maxTokens) break;
    if (startSet.has(at)) start = at;
  }
  const kept = units.filter((unit, at) => isSystem(unit) || at >= start);
  const cutUnits = units.filter((unit, at) => !isSystem(unit) && at < start);
  const cutTokens = units.reduce((sum, unit, at) => sum + (!isSystem(unit) && at < start ? tokens[at]! : 0), 0);
  const estimatedTokens = total - cutTokens;
  return {
    units: kept,
    estimatedTokens,
    cut: { messages: cutUnits.reduce((sum, unit) => sum + storedMessages(unit), 0), estimatedTokens: cutTokens },
    withinBudget: estimatedTokens <= maxTokens,
  };
}
