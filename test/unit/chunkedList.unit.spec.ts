// The chunked list against a plain array as its model: same items after any appends and changes, across chunk boundaries.
import { describe, expect, it } from 'vitest';
import { appendItems, type ChunkedList, emptyList, findItem, lastItem, listFrom, listSize, mapItems, toArray } from '../../src/modules/sessions/chunkedList.js';
import { deepFreeze, randomFrom } from '../support/propertyTesting.js';

interface Item {
  index: number;
  flagged: boolean;
}

describe('chunked list', () => {
  it('holds what a plain array would, through random appends and tail changes, never mutating a list it was given', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const random = randomFrom(seed);
      let list: ChunkedList<Item> = emptyList();
      let model: Item[] = [];
      let next = 0;
      for (let step = 0; step < 120; step++) {
        // Frozen: an append or change that wrote into the list it was given would throw.
        deepFreeze(list);
        if (random.next() < 0.75) {
          const items = Array.from({ length: random.int(0, 40) }, () => ({ index: next++, flagged: false }));
          list = appendItems(list, items);
          model = [...model, ...items];
        } else {
          const from = random.int(0, next);
          const flag = (item: Item) => (item.index >= from && !item.flagged ? { ...item, flagged: true } : item);
          list = mapItems(list, flag, (chunk) => chunk.at(-1)!.index >= from);
          model = model.map(flag);
        }
        expect(toArray(list), `seed ${seed} step ${step}`).toEqual(model);
        expect(listSize(list)).toBe(model.length);
        expect(lastItem(list)).toEqual(model.at(-1));
        expect(list.every((chunk) => chunk.length > 0 && chunk.length <= 256)).toBe(true);
      }
      expect(findItem(list, (item) => item.index === 7)).toEqual(model.find((item) => item.index === 7));
    }
  });

  it('appends by copying one chunk and the chunk index, sharing the full chunks', () => {
    const full = listFrom(Array.from({ length: 600 }, (_, index) => ({ index, flagged: false })));
    expect(full.map((chunk) => chunk.length)).toEqual([256, 256, 88]);
    const longer = appendItems(full, [{ index: 600, flagged: false }]);
    expect(longer[0]).toBe(full[0]);
    expect(longer[1]).toBe(full[1]);
    expect(longer[2]).not.toBe(full[2]);
    const unchanged = mapItems(longer, (item) => item);
    expect(unchanged).toBe(longer);
  });
});
