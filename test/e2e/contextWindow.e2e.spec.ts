// GET /v1/sessions/{id}/context-window over real HTTP: a turn cut by kill -9 (a call recorded, its result never)
// answered synthetically in every provider format, the stored transcript untouched, the maxTokens cut, bad input;
// and POST /turns with strictToolResults, which refuses such a history before it is written.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicRequest, RecordTurnRequest } from '../../src/client/index.js';
import { CONTEXT_WINDOW_FORMATS } from '../../src/modules/sessions/contextWindow/contextWindow.js';
import { call } from '../support/contextWindowHistories.js';
import { apiErrorOf, forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { providerProblems } from '../support/providerRequests.js';
import { telegramSource } from '../support/sources.js';

forEachBackend(
  'context window',
  (ledger) => {
    let sessionId: string;
    let chat = 0;

    const newSession = async () => {
      const resolved = await ledger.client.resolveSession({ source: telegramSource(`ctx-${++chat}`) });
      expect(resolved.created).toBe(true);
      return resolved.sessionId;
    };
    const turn = (id: string, body: RecordTurnRequest) => ledger.client.recordTurn(id, body);

    beforeAll(async () => {
      sessionId = await newSession();
      await turn(sessionId, {
        messages: [
          { role: 'system', content: 'You are a travel agent.' },
          { role: 'user', content: 'x'.repeat(2_000) },
          { role: 'assistant', content: 'Noted.' },
        ],
      });
      // The turn a kill -9 cut short: the gateway recorded the call, then died before any result.
      await turn(sessionId, {
        status: 'interrupted',
        messages: [
          { role: 'user', content: 'Book the flight and the hotel.' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [call('call_flight', 'book_flight', { to: 'LIS' }), call('call_hotel', 'book_hotel', { city: 'Lisbon' })],
          },
        ],
      });
      await turn(sessionId, {
        messages: [
          { role: 'user', content: 'Are you there?' },
          { role: 'assistant', content: 'Yes.' },
        ],
      });
    });

    it('every format answers both orphaned calls with synthetic results the provider takes; the stored transcript is unchanged', async () => {
      const { client } = ledger;
      const before = await client.getTranscript(sessionId);
      for (const format of CONTEXT_WINDOW_FORMATS) {
        const window = await client.contextWindow(sessionId, { format });
        expect(window).toMatchObject({ sessionId, format, maxTokens: null, withinBudget: true, cut: { messages: 0, estimatedTokens: 0 }, dropped: [] });
        expect(window.revision).toBe(before.revision);
        expect(window.synthetic).toEqual([
          { toolCallId: 'call_flight', reason: 'interrupted' },
          { toolCallId: 'call_hotel', reason: 'interrupted' },
        ]);
        expect(providerProblems(format, window.request)).toEqual([]);
      }
      const after = await client.getTranscript(sessionId);
      expect(after).toEqual(before);
      expect(after.messages.filter((message) => message.role === 'tool')).toEqual([]);
    });

    it('maxTokens cuts the oldest turn whole and keeps the system text; the answer says what was cut', async () => {
      const { client } = ledger;
      const whole = await client.contextWindow(sessionId, { format: 'anthropic' });
      const cut = await client.contextWindow(sessionId, { format: 'anthropic', maxTokens: whole.estimatedTokens - 100 });
      // The 2,000-character user message (504 tokens) and the reply to it (6) go; the system text stays.
      expect(cut.cut).toEqual({ messages: 2, estimatedTokens: 504 + 6 });
      expect(cut.estimatedTokens).toBe(whole.estimatedTokens - 510);
      // Typed by the format asked for: an Anthropic request, with its top-level system text.
      const request: AnthropicRequest = cut.request;
      expect(request.system).toBe('You are a travel agent.');
      expect(request.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Book the flight and the hotel.' }] });
      expect(providerProblems('anthropic', cut.request)).toEqual([]);
    });

    it("only the current slot's live messages: rewound and other slots' messages stay out", async () => {
      const { client } = ledger;
      const id = await newSession();
      await turn(id, {
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'one' },
        ],
      });
      await turn(id, {
        messages: [
          { role: 'user', content: 'undone' },
          { role: 'assistant', content: 'two' },
        ],
      });
      await client.rewind(id, { turns: 1 });
      await client.createSlot(id, 'side');
      await client.switchSlot(id, 'side');
      await turn(id, {
        messages: [
          { role: 'user', content: 'in the side slot' },
          { role: 'assistant', content: 'side' },
        ],
      });
      const side = await client.contextWindow(id, { format: 'openai-chat' });
      expect(side.request).toEqual({
        messages: [
          { role: 'user', content: 'in the side slot' },
          { role: 'assistant', content: 'side' },
        ],
      });
      await client.switchSlot(id, 'main');
      const main = await client.contextWindow(id, { format: 'openai-chat' });
      expect(main.request).toEqual({
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'one' },
        ],
      });
    });

    it('an unknown format, a bad maxTokens or an unknown query field answer 400 VALIDATION_FAILED; an unknown session 404', async () => {
      // Raw: queries the typed client never sends.
      for (const query of ['format=claude', 'format=gemini&maxTokens=0', 'format=gemini&maxTokens=ten', '', 'format=gemini&max=5']) {
        const answer = await ledger.service.request('GET', `/v1/sessions/${sessionId}/context-window?${query}`);
        expect([query, answer.status, answer.body.error.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
      }
      expect(await refusalOf(ledger.client.contextWindow('20260101_000000_deadbeef', { format: 'gemini' }))).toEqual({
        status: 404,
        code: 'SESSION_NOT_FOUND',
      });
    });

    describe('POST /turns with strictToolResults', () => {
      const revisionOf = async (id: string) => (await ledger.client.getSession(id)).revision;
      const strictTurn = (id: string, body: RecordTurnRequest) => ledger.client.recordTurn(id, { strictToolResults: true, ...body });
      const mismatchesOf = (refused: { details: unknown }) => (refused.details as { mismatches: unknown }).mismatches;

      it('refuses a result with no call, one without toolCallId and a completed turn leaving its call open: 400, nothing written', async () => {
        const id = await newSession();
        const revision = await revisionOf(id);
        const refused = await apiErrorOf(
          strictTurn(id, {
            messages: [
              { role: 'user', content: 'go' },
              { role: 'assistant', content: null, toolCalls: [call('call_a', 'f', {}), call('call_b', 'g', {})] },
              { role: 'tool', toolCallId: 'call_a', content: 'a' },
              { role: 'tool', toolCallId: 'call_nobody_made', content: '?' },
              { role: 'tool', content: 'no id' },
            ],
          }),
        );
        expect([refused.status, refused.code]).toEqual([400, 'TOOL_RESULT_MISMATCH']);
        expect(mismatchesOf(refused)).toEqual([
          { message: 3, toolCallId: 'call_nobody_made', reason: 'no_matching_call' },
          { message: 4, toolCallId: null, reason: 'missing_tool_call_id' },
          { message: 1, toolCallId: 'call_b', reason: 'unanswered_call' },
        ]);
        expect(await revisionOf(id)).toBe(revision);
        const duplicate = await apiErrorOf(
          strictTurn(id, {
            messages: [
              { role: 'user', content: 'go' },
              { role: 'assistant', content: null, toolCalls: [call('call_c', 'f', {})] },
              { role: 'tool', toolCallId: 'call_c', content: 'c' },
              { role: 'tool', toolCallId: 'call_c', content: 'c again' },
            ],
          }),
        );
        expect(mismatchesOf(duplicate)).toEqual([{ message: 3, toolCallId: 'call_c', reason: 'no_matching_call' }]);
        expect(await revisionOf(id)).toBe(revision);
        // The same turn without the flag is recorded as before: strictness is the caller's choice.
        await turn(id, { messages: [{ role: 'tool', toolCallId: 'call_x', content: '?' }] });
      });

      it('an interrupted turn may leave its call open, and a later strict turn may answer it; the window then needs no synthetic result', async () => {
        const { client } = ledger;
        const id = await newSession();
        await strictTurn(id, {
          status: 'interrupted',
          messages: [
            { role: 'user', content: 'look it up' },
            { role: 'assistant', content: null, toolCalls: [call('call_late', 'lookup', {})] },
          ],
        });
        expect((await client.contextWindow(id, { format: 'gemini' })).synthetic).toEqual([{ toolCallId: 'call_late', reason: 'interrupted' }]);
        await strictTurn(id, {
          messages: [
            { role: 'tool', toolCallId: 'call_late', content: 'found it' },
            { role: 'assistant', content: 'Found it.' },
          ],
        });
        const window = await client.contextWindow(id, { format: 'gemini' });
        expect(window.synthetic).toEqual([]);
        expect(providerProblems('gemini', window.request)).toEqual([]);
        // Answered once, the call is closed: a second answer is refused.
        expect(await refusalOf(strictTurn(id, { messages: [{ role: 'tool', toolCallId: 'call_late', content: 'again' }] }))).toEqual({
          status: 400,
          code: 'TOOL_RESULT_MISMATCH',
        });
      });
    });
  },
  { env: { RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' } },
);
