// Anthropic and Gemini refuse two turns of one role in a row: neighbours of one role become one turn.

/** `turns` with each run of one role folded into its first turn, whose `blocks(turn)` array takes the others' blocks. */
export function mergedSameRole<Turn extends { role: string }, Block>(turns: Turn[], blocks: (turn: Turn) => Block[]): Turn[] {
  const merged: Turn[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last?.role === turn.role) blocks(last).push(...blocks(turn));
    else merged.push(turn);
  }
  return merged;
}
