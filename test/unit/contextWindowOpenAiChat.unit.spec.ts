// openai-chat: the transcript as Chat Completions `messages`, given OpenAI's own parallel function calling example.
import { describe, expect, it } from 'vitest';
import { contextWindow } from '../../src/modules/sessions/contextWindow/contextWindow.js';
import { INTERRUPTED_RESULT } from '../../src/modules/sessions/contextWindow/windowHistory.js';
import { openAiParallelWeather, orphanedMidTurn, transcriptOf } from '../support/contextWindowHistories.js';

const weatherCall = (id: string, location: string) => ({
  id,
  type: 'function',
  function: { name: 'get_current_weather', arguments: JSON.stringify({ location, unit: 'celsius' }) },
});

describe('openai-chat', () => {
  it('parallel calls stay on one assistant message, each answered by a tool message in call order', () => {
    expect(contextWindow(transcriptOf(openAiParallelWeather), 'openai-chat').request).toEqual({
      messages: [
        { role: 'user', content: "What's the weather like in San Francisco, Tokyo, and Paris?" },
        {
          role: 'assistant',
          content: null,
          tool_calls: [weatherCall('call_sf', 'San Francisco, CA'), weatherCall('call_tokyo', 'Tokyo, Japan'), weatherCall('call_paris', 'Paris, France')],
        },
        { role: 'tool', tool_call_id: 'call_sf', content: '{"location": "San Francisco", "temperature": "72", "unit": "fahrenheit"}' },
        { role: 'tool', tool_call_id: 'call_tokyo', content: '{"location": "Tokyo", "temperature": "10", "unit": "celsius"}' },
        { role: 'tool', tool_call_id: 'call_paris', content: '{"location": "Paris", "temperature": "22", "unit": "celsius"}' },
        { role: 'assistant', content: 'San Francisco is 72°F, Tokyo 10°C and Paris 22°C.' },
      ],
    });
  });

  it('a call orphaned mid-turn is answered by a synthetic tool message before the next user message', () => {
    const window = contextWindow(transcriptOf(orphanedMidTurn), 'openai-chat');
    expect(window.request.messages.slice(1, 5)).toEqual([
      {
        role: 'assistant',
        content: 'Booking both.',
        tool_calls: [
          { id: 'call_flight', type: 'function', function: { name: 'book_flight', arguments: '{"to":"LIS"}' } },
          { id: 'call_hotel', type: 'function', function: { name: 'book_hotel', arguments: '{"city":"Lisbon"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_flight', content: 'flight booked: TP123' },
      { role: 'tool', tool_call_id: 'call_hotel', content: INTERRUPTED_RESULT },
      { role: 'user', content: 'Are you there?' },
    ]);
    expect(window.synthetic).toEqual([{ toolCallId: 'call_hotel', reason: 'interrupted' }]);
  });

  it('system text stays in place; parts with images become content parts; a name Chat would refuse is left out', () => {
    const window = contextWindow(
      transcriptOf([
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        {
          role: 'user',
          name: 'alice',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
        { role: 'assistant', name: 'the bot', content: { parts: [{ text: 'A cat.' }] } },
      ]),
      'openai-chat',
    );
    expect(window.request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        name: 'alice',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        ],
      },
      { role: 'assistant', content: 'A cat.' },
    ]);
  });
});
