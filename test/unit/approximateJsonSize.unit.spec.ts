import { describe, expect, it } from 'vitest';
import { approximateJsonSize } from '../../src/events/approximateJsonSize.js';

describe('approximateJsonSize', () => {
  it('is close to the real JSON length for small and large, nested values', () => {
    const message = (index: number) => ({ role: 'user', content: `message number ${index} with some text`, index, deleted: false });
    for (const value of [{ a: 1, b: 'two', c: [true, null] }, { transcript: Array.from({ length: 10_000 }, (_, index) => message(index)) }]) {
      const real = JSON.stringify(value).length;
      const estimate = approximateJsonSize(value);
      expect(estimate / real).toBeGreaterThan(0.8);
      expect(estimate / real).toBeLessThan(1.25);
    }
  });
});
