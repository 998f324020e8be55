// Conversations from the providers' own tool-use documentation, as a session's transcript stores them, and the
// histories a crash leaves behind: inputs of the context-window tests.
import type { MessageInput, StoredMessage } from '../../src/events/session/sessionMessages.js';

/** Messages numbered as a transcript numbers them, one turn per user message. */
export function transcriptOf(messages: MessageInput[]): StoredMessage[] {
  let turnIndex = 0;
  return messages.map((message, index) => {
    if (message.role === 'user' && index > 0) turnIndex++;
    return { ...message, index, turnIndex, at: '2026-06-01T12:00:00.000Z' };
  });
}

export const call = (id: string, name: string, args: object) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

/** OpenAI's parallel function calling guide: three get_current_weather calls in one assistant message. */
export const openAiParallelWeather: MessageInput[] = [
  { role: 'user', content: "What's the weather like in San Francisco, Tokyo, and Paris?" },
  {
    role: 'assistant',
    content: null,
    toolCalls: [
      call('call_sf', 'get_current_weather', { location: 'San Francisco, CA', unit: 'celsius' }),
      call('call_tokyo', 'get_current_weather', { location: 'Tokyo, Japan', unit: 'celsius' }),
      call('call_paris', 'get_current_weather', { location: 'Paris, France', unit: 'celsius' }),
    ],
  },
  { role: 'tool', toolCallId: 'call_sf', name: 'get_current_weather', content: '{"location": "San Francisco", "temperature": "72", "unit": "fahrenheit"}' },
  { role: 'tool', toolCallId: 'call_tokyo', name: 'get_current_weather', content: '{"location": "Tokyo", "temperature": "10", "unit": "celsius"}' },
  { role: 'tool', toolCallId: 'call_paris', name: 'get_current_weather', content: '{"location": "Paris", "temperature": "22", "unit": "celsius"}' },
  { role: 'assistant', content: 'San Francisco is 72°F, Tokyo 10°C and Paris 22°C.' },
];

/** Anthropic's tool use overview: a system prompt, one get_weather call with text before it, and its result. */
export const anthropicGetWeather: MessageInput[] = [
  { role: 'system', content: 'You are a helpful weather assistant.' },
  { role: 'user', content: 'What is the weather like in San Francisco?' },
  {
    role: 'assistant',
    content: "I'll check the current weather in San Francisco for you.",
    toolCalls: [call('toolu_01A09q90qw90lq917835lq9', 'get_weather', { location: 'San Francisco, CA', unit: 'celsius' })],
  },
  { role: 'tool', toolCallId: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees' },
  { role: 'assistant', content: 'It is currently 15°C in San Francisco.' },
];

/** Gemini's parallel function calling example: three calls the model makes at once to start a party. */
export const geminiParty: MessageInput[] = [
  { role: 'system', content: 'You are a home automation assistant.' },
  { role: 'user', content: 'Turn this place into a party!' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      call('party_1', 'power_disco_ball', { power: true }),
      call('party_2', 'start_music', { energetic: true, loud: true }),
      call('party_3', 'dim_lights', { brightness: 0.5 }),
    ],
  },
  { role: 'tool', toolCallId: 'party_1', content: { status: 'Disco ball powered on' } },
  { role: 'tool', toolCallId: 'party_2', content: { status: 'Music started' } },
  { role: 'tool', toolCallId: 'party_3', content: { status: 'Lights dimmed to 50%' } },
  { role: 'assistant', content: 'Party mode is on!' },
];

/** A turn cut by kill -9 after the first of two parallel results was recorded; the next turn went on regardless. */
export const orphanedMidTurn: MessageInput[] = [
  { role: 'user', content: 'Book the flight and the hotel.' },
  {
    role: 'assistant',
    content: 'Booking both.',
    toolCalls: [call('call_flight', 'book_flight', { to: 'LIS' }), call('call_hotel', 'book_hotel', { city: 'Lisbon' })],
  },
  { role: 'tool', toolCallId: 'call_flight', content: 'flight booked: TP123' },
  { role: 'user', content: 'Are you there?' },
  { role: 'assistant', content: 'Yes: the flight is booked; the hotel booking did not finish.' },
];

/** A history a buggy caller wrote: a result recorded after the next user message, one whose call is missing, a call with no id. */
export const disorderedResults: MessageInput[] = [
  { role: 'user', content: 'Look it up.' },
  {
    role: 'assistant',
    content: null,
    toolCalls: [call('call_late', 'lookup', { q: 'x' }), { type: 'function', function: { name: 'lookup', arguments: '{}' } }],
  },
  { role: 'user', content: 'Hello?' },
  { role: 'tool', toolCallId: 'call_late', content: 'found x' },
  { role: 'tool', toolCallId: 'call_nobody_made', content: 'stray' },
  { role: 'assistant', content: 'Found x.' },
];

export const allHistories = { openAiParallelWeather, anthropicGetWeather, geminiParty, orphanedMidTurn, disorderedResults };
