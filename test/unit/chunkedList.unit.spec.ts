// The chunked list against a plain array as its model: same items after any appends and changes, across chunk boundaries.
import { describe, expect, it } from 'vitest';
import {
  appendItems,
  type ChunkedList,
  emptyList,
  findItem,
  findLastItem,
  itemCounter,
  itemsFrom,
  lastItem,
  leadingItems,
  listFrom,
  listSize,
  mapItems,
  sharedLeadingCount,
  toArray,
} from '../../src/modules/sessions/domain/chunkedList.js';
import { deepFreeze, randomFrom } from '../support/propertyTesting.js';

interface Item {
  index: number;
  flagged: boolean;
}

/** The same items in the same order, each with exactly `index` and `flagged` equal: what toEqual checks of these items. */
function sameItems(items: readonly Item[], model: readonly Item[]): boolean {
  if (items.length !== model.length) return false;
  return items.every((item, at) => Object.keys(item).length === 2 && item.index === model[at]!.index && item.flagged === model[at]!.flagged);
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
        // toEqual walks every item at every step (most of this file's time): a plain loop compares first, toEqual shows a difference.
        const items = toArray(list);
        if (!sameItems(items, model)) expect(items, `seed ${seed} step ${step}`).toEqual(model);
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

  it('cuts, counts and compares as a plain array would, sharing the chunks it keeps', () => {
    const same = (a: Item, b: Item) => a.index === b.index && a.flagged === b.flagged;
    const flagged = itemCounter<Item>((item) => item.flagged);
    for (let seed = 1; seed <= 30; seed++) {
      const random = randomFrom(seed);
      const model = Array.from({ length: random.int(0, 700) }, (_, index) => ({ index, flagged: random.next() < 0.3 }));
      const list = deepFreeze(listFrom(model));
      const cut = random.int(0, model.length + 5);
      expect(toArray(leadingItems(list, cut)), `seed ${seed}`).toEqual(model.slice(0, cut));
      expect(itemsFrom(list, cut)).toEqual(model.slice(cut));
      expect(toArray(appendItems(leadingItems(list, cut), itemsFrom(list, cut)))).toEqual(model);
      expect(flagged(list)).toBe(model.filter((item) => item.flagged).length);
      expect(flagged(list)).toBe(model.filter((item) => item.flagged).length);
      expect(findLastItem(list, (item) => item.flagged)).toEqual(model.findLast((item) => item.flagged));
      // A copy that differs from `cut` on, in a flag or in length, shares exactly the items before it.
      const changed = model.map((item) => (item.index >= cut ? { ...item, flagged: !item.flagged } : { ...item }));
      expect(sharedLeadingCount(list, listFrom(changed), same)).toBe(Math.min(cut, model.length));
      expect(sharedLeadingCount(list, leadingItems(list, cut), same)).toBe(Math.min(cut, model.length));
      expect(sharedLeadingCount(leadingItems(list, cut), list, () => false)).toBe(Math.min(cut, model.length));
    }
    const list = listFrom(Array.from({ length: 600 }, (_, index) => ({ index, flagged: false })));
    const kept = leadingItems(list, 300);
    expect(kept[0]).toBe(list[0]);
    expect(kept.map((chunk) => chunk.length)).toEqual([256, 44]);
  });
});
