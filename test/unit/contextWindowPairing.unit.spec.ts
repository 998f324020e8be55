// The step every format shares: each call answered (synthetic results for orphans), stray results dropped, the
// maxTokens cut by whole turns; and every format's output taken by its provider's schema and ordering rules.
import { describe, expect, it } from 'vitest';
import { CONTEXT_WINDOW_FORMATS, contextWindow } from '../../src/modules/sessions/contextWindow/contextWindow.js';
import { estimatedEntryTokens } from '../../src/modules/sessions/contextWindow/tokenEstimate.js';
import { INTERRUPTED_RESULT, pairedHistory } from '../../src/modules/sessions/contextWindow/windowHistory.js';
import { allHistories, disorderedResults, orphanedMidTurn, transcriptOf } from '../support/contextWindowHistories.js';
import { providerProblems } from '../support/providerRequests.js';

describe('tool calls and their results', () => {
  it('an orphaned call gets a synthetic result right after its answered sibling, listed as synthetic; the stored messages are unchanged', () => {
    const stored = transcriptOf(orphanedMidTurn);
    const before = structuredClone(stored);
    const paired = pairedHistory(stored);
    expect(paired.synthetic).toEqual([{ toolCallId: 'call_hotel', reason: 'interrupted' }]);
    expect(paired.dropped).toEqual([]);
    expect(
      paired.units.map((unit) => unit.entries.map((entry) => (entry.kind === 'toolResult' ? `result:${entry.call.id}:${entry.synthetic}` : entry.kind))),
    ).toEqual([['user'], ['assistant', 'result:call_flight:false', 'result:call_hotel:true'], ['user'], ['assistant']]);
    const hotel = paired.units[1]!.entries[2]!;
    expect(hotel).toMatchObject({ kind: 'toolResult', index: null, text: INTERRUPTED_RESULT });
    expect(stored).toEqual(before);
  });

  it('a result recorded after the next user message moves to its call; a result with no call and a call with no id are dropped and reported', () => {
    const paired = pairedHistory(transcriptOf(disorderedResults));
    expect(paired.units[1]!.entries).toMatchObject([
      { kind: 'assistant', index: 1 },
      { kind: 'toolResult', index: 3, text: 'found x', synthetic: false },
    ]);
    expect(paired.units[2]!.entries).toMatchObject([{ kind: 'user', index: 2 }]);
    expect(paired.synthetic).toEqual([]);
    expect(paired.dropped).toEqual([
      { messageIndex: 1, toolCallId: null, reason: 'malformed_tool_call' },
      { messageIndex: 4, toolCallId: 'call_nobody_made', reason: 'no_matching_call' },
    ]);
  });

  it('a result before its call, a second result for one call and a result without toolCallId are dropped; a call answered twice keeps the first', () => {
    const paired = pairedHistory(
      transcriptOf([
        { role: 'tool', toolCallId: 'call_1', content: 'too early' },
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', toolCallId: 'call_1', content: 'first' },
        { role: 'tool', toolCallId: 'call_1', content: 'second' },
        { role: 'tool', content: 'no id' },
      ]),
    );
    expect(paired.units[1]!.entries[1]).toMatchObject({ kind: 'toolResult', index: 3, text: 'first' });
    expect(paired.dropped.map(({ messageIndex, reason }) => `${messageIndex}:${reason}`)).toEqual([
      '0:no_matching_call',
      '4:no_matching_call',
      '5:missing_tool_call_id',
    ]);
  });
});

describe('the maxTokens cut', () => {
  const long = (n: number) => 'x'.repeat(n);
  const history = transcriptOf([
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: long(400) },
    { role: 'assistant', content: long(400) },
    { role: 'user', content: 'weather?' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: long(400) } }] },
    { role: 'tool', toolCallId: 'c1', content: long(400) },
    { role: 'assistant', content: 'sunny' },
    { role: 'user', content: 'thanks' },
  ]);
  const whole = contextWindow(history, 'openai-chat');

  it('estimates ceil(UTF-8 bytes / 4) + 4 per message', () => {
    expect(estimatedEntryTokens({ kind: 'user', index: 0, parts: [{ type: 'text', text: 'héllo' }] })).toBe(Math.ceil(6 / 4) + 4);
    // 8 (system) + 104 + 104 + 6 ('weather?') + 107 (the call: id, name, arguments) + 105 (its result) + 6 + 6
    expect(whole.estimatedTokens).toBe(446);
    expect(whole.cut).toEqual({ messages: 0, estimatedTokens: 0 });
    expect(whole.withinBudget).toBe(true);
  });

  it('cuts the oldest turn first, whole, and keeps the system text', () => {
    const window = contextWindow(history, 'openai-chat', whole.estimatedTokens - 1);
    expect(window.cut).toEqual({ messages: 2, estimatedTokens: 2 * (100 + 4) });
    expect(window.estimatedTokens).toBe(whole.estimatedTokens - 208);
    expect(window.request.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('never cuts between a call and its result: a budget that would split them starts the window at the next user message', () => {
    // Room for the system text, 'thanks', 'sunny' and the tool result (8 + 6 + 6 + 105), not for the call too.
    const window = contextWindow(history, 'openai-chat', 125);
    expect(window.request.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(window.cut.messages).toBe(6);
    expect(window.withinBudget).toBe(true);
  });

  it('keeps the newest turn when even it is over budget, and says so', () => {
    const window = contextWindow(history, 'anthropic', 1);
    expect(window.request).toEqual({ system: 'You are terse.', messages: [{ role: 'user', content: [{ type: 'text', text: 'thanks' }] }] });
    expect(window.withinBudget).toBe(false);
    expect(window.estimatedTokens).toBeGreaterThan(1);
  });

  it('lists as synthetic only the orphans the window keeps', () => {
    const history = transcriptOf(orphanedMidTurn);
    expect(contextWindow(history, 'gemini').synthetic).toEqual([{ toolCallId: 'call_hotel', reason: 'interrupted' }]);
    expect(contextWindow(history, 'gemini', 40).synthetic).toEqual([]);
  });
});

describe('every format, every history: the provider takes the request', () => {
  for (const [name, history] of Object.entries(allHistories))
    for (const format of CONTEXT_WINDOW_FORMATS)
      it(`${name} as ${format}`, () => {
        const window = contextWindow(transcriptOf(history), format);
        expect(providerProblems(format, window.request)).toEqual([]);
      });

  it('the checks refuse a history converted without pairing (an orphaned call) and a malformed body', () => {
    expect(
      providerProblems('openai-chat', {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        ],
      }),
    ).not.toEqual([]);
    expect(providerProblems('anthropic', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] })).not.toEqual([]);
    expect(
      providerProblems('gemini', {
        contents: [
          { role: 'user', parts: [{ text: 'a' }] },
          { role: 'user', parts: [{ text: 'b' }] },
        ],
      }),
    ).not.toEqual([]);
    expect(providerProblems('openai-responses', { input: [{ type: 'function_call_output', call_id: 'x', output: 'y' }] })).not.toEqual([]);
  });
});
