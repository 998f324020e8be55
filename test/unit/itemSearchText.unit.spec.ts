// What of an item the search index reads: text where each framework's shape keeps it, and the role it is filtered by.
import { describe, expect, it } from 'vitest';
import { itemRole, itemSearchText } from '../../src/projections/transcriptSearch/itemSearchText.js';

describe('the text and role of an item', () => {
  it('reads content as a string, as parts with text, and as Gemini parts; text; a string output; the same in a message', () => {
    expect(itemSearchText({ role: 'user', content: 'plain words' })).toBe('plain words');
    expect(
      itemSearchText({
        content: [
          { type: 'input_text', text: 'one' },
          { type: 'input_image', image_url: 'x' },
          { type: 'output_text', text: 'two' },
        ],
      }),
    ).toBe('one\ntwo');
    expect(itemSearchText({ content: { role: 'model', parts: [{ text: 'gemini' }, { functionCall: { name: 'f' } }] } })).toBe('gemini');
    expect(itemSearchText({ text: 'a note', output: 'a result' })).toBe('a note\na result');
    expect(itemSearchText({ type: 'user', uuid: 'u', message: { role: 'user', content: [{ type: 'text', text: 'claude' }] } })).toBe('claude');
  });

  it('reads no ids, arguments or metadata, and nothing from an item without text', () => {
    expect(itemSearchText({ id: 'msg_1', type: 'function_call', name: 'lookup', arguments: '{"q":"secret"}', callId: 'call_1' })).toBe('');
    expect(itemSearchText({})).toBe('');
    expect(itemSearchText({ content: 42, text: null, output: { nested: 'not read' } })).toBe('');
  });

  it('takes the role from role, the content, the message, then the type', () => {
    expect(itemRole({ role: 'assistant', type: 'message' })).toBe('assistant');
    expect(itemRole({ author: 'agent', content: { role: 'model', parts: [] } })).toBe('model');
    expect(itemRole({ type: 'assistant', message: { role: 'assistant' } })).toBe('assistant');
    expect(itemRole({ type: 'function_call' })).toBe('function_call');
    expect(itemRole({ role: 7, type: '' })).toBe('');
  });
});
