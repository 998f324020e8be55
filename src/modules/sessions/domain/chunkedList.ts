// An immutable list that grows cheaply: chunks of at most CHUNK_SIZE items, so an append copies one chunk and the
// list of chunks instead of every item. Plain nested arrays: it serialises to JSON and parses back unchanged.

export type ChunkedList<Item> = readonly (readonly Item[])[];

const CHUNK_SIZE = 256;

export const emptyList = <Item>(): ChunkedList<Item> => [];

export function appendItems<Item>(list: ChunkedList<Item>, items: readonly Item[]): ChunkedList<Item> {
  if (items.length === 0) return list;
  const last = list.at(-1);
  const chunks = last && last.length < CHUNK_SIZE ? list.slice(0, -1) : [...list];
  let open: Item[] = last && last.length < CHUNK_SIZE ? [...last] : [];
  for (const item of items) {
    if (open.length === CHUNK_SIZE) {
      chunks.push(open);
      open = [];
    }
    open.push(item);
  }
  chunks.push(open);
  return chunks;
}

export function listFrom<Item>(items: readonly Item[]): ChunkedList<Item> {
  return appendItems(emptyList<Item>(), items);
}

export function toArray<Item>(list: ChunkedList<Item>): Item[] {
  return list.flat() as Item[];
}

export function listSize(list: ChunkedList<unknown>): number {
  return list.reduce((size, chunk) => size + chunk.length, 0);
}

export function lastItem<Item>(list: ChunkedList<Item>): Item | undefined {
  return list.at(-1)?.at(-1);
}

export function findItem<Item>(list: ChunkedList<Item>, matches: (item: Item) => boolean): Item | undefined {
  for (const chunk of list) {
    const found = chunk.find(matches);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Applies `change` to the items, copying only the chunks where it returned a different item. Chunks are visited
 * from the end; the first one for which `mayChange` is false ends the visit (for changes confined to a tail).
 */
export function mapItems<Item>(
  list: ChunkedList<Item>,
  change: (item: Item) => Item,
  mayChange: (chunk: readonly Item[]) => boolean = () => true,
): ChunkedList<Item> {
  let result: (readonly Item[])[] | undefined;
  for (let at = list.length - 1; at >= 0; at--) {
    const chunk = list[at]!;
    if (!mayChange(chunk)) break;
    let changed: Item[] | undefined;
    chunk.forEach((item, offset) => {
      const next = change(item);
      if (next !== item) (changed ??= [...chunk])[offset] = next;
    });
    if (changed) (result ??= [...list])[at] = changed;
  }
  return result ?? list;
}

/** The first `count` items (all of them when the list is shorter), sharing every whole chunk it keeps. */
export function leadingItems<Item>(list: ChunkedList<Item>, count: number): ChunkedList<Item> {
  const kept: (readonly Item[])[] = [];
  let remaining = count;
  for (const chunk of list) {
    if (remaining <= 0) break;
    kept.push(chunk.length <= remaining ? chunk : chunk.slice(0, remaining));
    remaining -= chunk.length;
  }
  return kept;
}

/** The items from position `start` on, as an array. */
export function itemsFrom<Item>(list: ChunkedList<Item>, start: number): Item[] {
  const items: Item[] = [];
  let offset = 0;
  for (const chunk of list) {
    if (offset + chunk.length > start) items.push(...(offset >= start ? chunk : chunk.slice(start - offset)));
    offset += chunk.length;
  }
  return items;
}

/** Searches from the end: what was added last is found first. */
export function findLastItem<Item>(list: ChunkedList<Item>, matches: (item: Item) => boolean): Item | undefined {
  for (let at = list.length - 1; at >= 0; at--) {
    const found = list[at]!.findLast(matches);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A counter of the items that match, remembering each chunk's count: chunks never change and states folded from
 * one history share them, so a long list costs a lookup per chunk once its chunks have been counted.
 */
export function itemCounter<Item>(matches: (item: Item) => boolean): (list: ChunkedList<Item>) => number {
  const counted = new WeakMap<readonly Item[], number>();
  return (list) => {
    let count = 0;
    for (const chunk of list) {
      let inChunk = counted.get(chunk);
      if (inChunk === undefined) {
        inChunk = chunk.reduce((sum, item) => (matches(item) ? sum + 1 : sum), 0);
        counted.set(chunk, inChunk);
      }
      count += inChunk;
    }
    return count;
  };
}

/**
 * How many leading items the two lists have in common. Lists folded from one history share their unchanged
 * chunks, and a shared chunk is skipped whole; past the first chunk that differs, items are compared one by one,
 * by identity first and then by `same`.
 */
export function sharedLeadingCount<Item>(a: ChunkedList<Item>, b: ChunkedList<Item>, same: (x: Item, y: Item) => boolean): number {
  let shared = 0;
  let chunk = 0;
  while (chunk < a.length && chunk < b.length && a[chunk] === b[chunk]) shared += a[chunk++]!.length;
  // Chunks are never empty, but need not be aligned: each list keeps its own place.
  let [chunkA, offsetA, chunkB, offsetB] = [chunk, 0, chunk, 0];
  while (chunkA < a.length && chunkB < b.length) {
    const x = a[chunkA]![offsetA]!;
    const y = b[chunkB]![offsetB]!;
    if (x !== y && !same(x, y)) break;
    shared += 1;
    if (++offsetA === a[chunkA]!.length) [chunkA, offsetA] = [chunkA + 1, 0];
    if (++offsetB === b[chunkB]!.length) [chunkB, offsetB] = [chunkB + 1, 0];
  }
  return shared;
}
