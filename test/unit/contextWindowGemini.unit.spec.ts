// gemini: the transcript as generateContent `systemInstruction` + `contents`, given Gemini's parallel function calling example.
import { describe, expect, it } from 'vitest';
import { contextWindow } from '../../src/modules/sessions/contextWindow/contextWindow.js';
import { INTERRUPTED_RESULT } from '../../src/modules/sessions/contextWindow/windowHistory.js';
import { geminiParty, orphanedMidTurn, transcriptOf } from '../support/contextWindowHistories.js';

describe('gemini', () => {
  it('parallel calls are functionCall parts of one model turn, answered by functionResponse parts of one user turn, ids kept', () => {
    expect(contextWindow(transcriptOf(geminiParty), 'gemini').request).toEqual({
      systemInstruction: { parts: [{ text: 'You are a home automation assistant.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Turn this place into a party!' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'party_1', name: 'power_disco_ball', args: { power: true } } },
            { functionCall: { id: 'party_2', name: 'start_music', args: { energetic: true, loud: true } } },
            { functionCall: { id: 'party_3', name: 'dim_lights', args: { brightness: 0.5 } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'party_1', name: 'power_disco_ball', response: { output: '{"status":"Disco ball powered on"}' } } },
            { functionResponse: { id: 'party_2', name: 'start_music', response: { output: '{"status":"Music started"}' } } },
            { functionResponse: { id: 'party_3', name: 'dim_lights', response: { output: '{"status":"Lights dimmed to 50%"}' } } },
          ],
        },
        { role: 'model', parts: [{ text: 'Party mode is on!' }] },
      ],
    });
  });

  it("an orphaned call gets a functionResponse with `error` (Gemini's field for a failed call), named after its call", () => {
    const window = contextWindow(transcriptOf(orphanedMidTurn), 'gemini');
    expect(window.request.systemInstruction).toBeUndefined();
    expect(window.request.contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'call_flight', name: 'book_flight', response: { output: 'flight booked: TP123' } } },
        { functionResponse: { id: 'call_hotel', name: 'book_hotel', response: { error: INTERRUPTED_RESULT } } },
        { text: 'Are you there?' },
      ],
    });
  });

  it('images: data URLs as inlineData, other URLs as fileData', () => {
    const window = contextWindow(
      transcriptOf([
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'gs://bucket/cat.png' } },
          ],
        },
      ]),
      'gemini',
    );
    expect(window.request.contents).toEqual([
      { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }, { fileData: { fileUri: 'gs://bucket/cat.png' } }] },
    ]);
  });
});
