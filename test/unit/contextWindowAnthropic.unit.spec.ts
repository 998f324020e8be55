// anthropic: the transcript as Messages `system` + `messages`, given Anthropic's own get_weather tool use example.
import { describe, expect, it } from 'vitest';
import { contextWindow } from '../../src/modules/sessions/contextWindow/contextWindow.js';
import { INTERRUPTED_RESULT } from '../../src/modules/sessions/contextWindow/windowHistory.js';
import { anthropicGetWeather, openAiParallelWeather, orphanedMidTurn, transcriptOf } from '../support/contextWindowHistories.js';

describe('anthropic', () => {
  it('system text goes top-level; text and tool_use share the assistant turn; the result is a tool_result in a user turn', () => {
    expect(contextWindow(transcriptOf(anthropicGetWeather), 'anthropic').request).toEqual({
      system: 'You are a helpful weather assistant.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is the weather like in San Francisco?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: "I'll check the current weather in San Francisco for you." },
            { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { location: 'San Francisco, CA', unit: 'celsius' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is currently 15°C in San Francisco.' }] },
      ],
    });
  });

  it('parallel results merge into one user turn', () => {
    const { messages } = contextWindow(transcriptOf(openAiParallelWeather), 'anthropic').request;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[2]!.content.map((block) => (block.type === 'tool_result' ? block.tool_use_id : block.type))).toEqual([
      'call_sf',
      'call_tokyo',
      'call_paris',
    ]);
  });

  it('an orphaned call gets an error tool_result, and the next user text joins that turn after the results', () => {
    const window = contextWindow(transcriptOf(orphanedMidTurn), 'anthropic');
    expect(window.request.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_flight', content: 'flight booked: TP123' },
        { type: 'tool_result', tool_use_id: 'call_hotel', content: INTERRUPTED_RESULT, is_error: true },
        { type: 'text', text: 'Are you there?' },
      ],
    });
    expect(window.request.messages).toHaveLength(4);
  });

  it('several system messages join; arguments that are not a JSON object are kept under `arguments`; data URLs become base64 images', () => {
    const window = contextWindow(
      transcriptOf([
        { role: 'system', content: 'One.' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }] },
        { role: 'user', content: 'Two messages in a row.' },
        { role: 'system', content: 'Two.' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_x', type: 'function', function: { name: 'f', arguments: '{not json' } }] },
        { role: 'tool', toolCallId: 'call_x', content: 'ok' },
      ]),
      'anthropic',
    );
    expect(window.request.system).toBe('One.\n\nTwo.');
    expect(window.request.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
        { type: 'text', text: 'Two messages in a row.' },
      ],
    });
    expect(window.request.messages[1]!.content).toEqual([{ type: 'tool_use', id: 'call_x', name: 'f', input: { arguments: '{not json' } }]);
  });
});
