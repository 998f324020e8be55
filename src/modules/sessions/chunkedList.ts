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
export function mapItems<Item>(list: ChunkedList<Item>, change: (item: Item) => Item, mayChange: (chunk: readonly Item[]) => boolean = () => true): ChunkedList<Item> {
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
