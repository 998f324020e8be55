// The checks every request body goes through (JSON value, depth, storable characters): paths they name, and wide input.
import { describe, expect, it } from 'vitest';
import { findTooDeep } from '../../src/http/jsonDepth.js';
import { isJsonValue } from '../../src/http/jsonValues.js';
import { findUnsupportedCharacter } from '../../src/http/unsupportedCharacters.js';

const million = 1_000_000;
const wideArray = () => Array.from({ length: million }, (_, index) => `item ${index}`);
const wideObject = () => Object.fromEntries(Array.from({ length: million }, (_, index) => [`key${index}`, index]));

describe('request JSON checks', () => {
  it('take a million-element array and a million-key object without overflowing the stack', () => {
    for (const wide of [wideArray(), wideObject()]) {
      expect(isJsonValue(wide)).toBe(true);
      expect(findTooDeep({ value: wide }, 64)).toBeNull();
      expect(findUnsupportedCharacter({ value: wide })).toBeNull();
    }
  });

  it('refuse what is not JSON anywhere in a value, an own __proto__ member included', () => {
    expect(isJsonValue([1, 'a', null, { b: [true] }])).toBe(true);
    expect(isJsonValue([1, { b: [Number.NaN] }])).toBe(false);
    expect(isJsonValue({ a: new Date() })).toBe(false);
    expect(isJsonValue(JSON.parse('{"__proto__": {"x": 1}}'))).toBe(true);
    const hidden = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    Object.defineProperty(hidden, '__proto__', { value: { x: Number.POSITIVE_INFINITY }, enumerable: true });
    expect(isJsonValue(hidden)).toBe(false);
    expect(isJsonValue(Number.POSITIVE_INFINITY)).toBe(false);
  });

  it('name the path of the first value too deep, and of the first key or string that cannot be stored', () => {
    expect(findTooDeep({ a: [1, { b: [[]] }] }, 4)).toBe('a.1.b.0');
    expect(findTooDeep({ a: [1, { b: [[]] }] }, 5)).toBeNull();
    expect(findUnsupportedCharacter({ messages: [{ content: 'ok' }, { content: 'a\u0000b' }] })).toBe('messages.1.content');
    expect(findUnsupportedCharacter({ meta: { 'k\u0000': 1 } })).toBe('meta.k\u0000');
    expect(findUnsupportedCharacter({ list: ['\ud800'] })).toBe('list.0');
    expect(findUnsupportedCharacter('\udc00')).toBe('');
    expect(findUnsupportedCharacter({ fine: ['\ud83d\ude00'] })).toBeNull();
  });
});
