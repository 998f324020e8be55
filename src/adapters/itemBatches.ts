// Items in order, in append requests bounded by count and by size: each request well under the ledger's limits.

/** Items per request: well under the ledger's MAX_MESSAGES_PER_TURN (1000 by default). */
const BATCH_ITEMS = 100;
/** Bytes of items per request: well under the ledger's BODY_LIMIT (1 MB by default); a larger item goes alone. */
const BATCH_BYTES = 512 * 1024;

export function* itemBatches<Item>(items: readonly Item[]): Generator<Item[]> {
  let batch: Item[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item));
    if (batch.length > 0 && (batch.length >= BATCH_ITEMS || bytes + size > BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
