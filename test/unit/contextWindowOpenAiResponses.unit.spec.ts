// openai-responses: the transcript as Responses `input` items, given OpenAI's parallel function calling example.
import { describe, expect, it } from 'vitest';
import { contextWindow } from '../../src/modules/sessions/contextWindow/contextWindow.js';
import { INTERRUPTED_RESULT } from '../../src/modules/sessions/contextWindow/windowHistory.js';
import { anthropicGetWeather, openAiParallelWeather, orphanedMidTurn, transcriptOf } from '../support/contextWindowHistories.js';

describe('openai-responses', () => {
  it('parallel calls are function_call items, each followed in order by its function_call_output', () => {
    const { input } = contextWindow(transcriptOf(openAiParallelWeather), 'openai-responses').request;
    expect(input).toEqual([
      { type: 'message', role: 'user', content: "What's the weather like in San Francisco, Tokyo, and Paris?" },
      { type: 'function_call', call_id: 'call_sf', name: 'get_current_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
      { type: 'function_call', call_id: 'call_tokyo', name: 'get_current_weather', arguments: '{"location":"Tokyo, Japan","unit":"celsius"}' },
      { type: 'function_call', call_id: 'call_paris', name: 'get_current_weather', arguments: '{"location":"Paris, France","unit":"celsius"}' },
      { type: 'function_call_output', call_id: 'call_sf', output: '{"location": "San Francisco", "temperature": "72", "unit": "fahrenheit"}' },
      { type: 'function_call_output', call_id: 'call_tokyo', output: '{"location": "Tokyo", "temperature": "10", "unit": "celsius"}' },
      { type: 'function_call_output', call_id: 'call_paris', output: '{"location": "Paris", "temperature": "22", "unit": "celsius"}' },
      { type: 'message', role: 'assistant', content: 'San Francisco is 72°F, Tokyo 10°C and Paris 22°C.' },
    ]);
  });

  it('system text is a system message item in place; assistant text comes before its calls', () => {
    const { input } = contextWindow(transcriptOf(anthropicGetWeather), 'openai-responses').request;
    expect(input.slice(0, 4)).toEqual([
      { type: 'message', role: 'system', content: 'You are a helpful weather assistant.' },
      { type: 'message', role: 'user', content: 'What is the weather like in San Francisco?' },
      { type: 'message', role: 'assistant', content: "I'll check the current weather in San Francisco for you." },
      { type: 'function_call', call_id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
    ]);
  });

  it('an orphaned call gets a synthetic function_call_output before the next message', () => {
    const { input } = contextWindow(transcriptOf(orphanedMidTurn), 'openai-responses').request;
    expect(input.slice(5, 7)).toEqual([
      { type: 'function_call_output', call_id: 'call_hotel', output: INTERRUPTED_RESULT },
      { type: 'message', role: 'user', content: 'Are you there?' },
    ]);
  });

  it('images in a user message become input_image parts', () => {
    const { input } = contextWindow(
      transcriptOf([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And this?' },
            { type: 'image_url', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
          ],
        },
      ]),
      'openai-responses',
    ).request;
    expect(input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'And this?' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
        ],
      },
    ]);
  });
});
