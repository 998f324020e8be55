// GET /v1/sessions/{id}/items/{itemId} over real HTTP: an item by its id (one with `/` and `:` in it), a miss, an item
// popped, cleared or rolled back, one appended again after its removal, and one a fork started with.
import { expect, it } from 'vitest';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';

forEachBackend('one item by its id', (ledger) => {
  let counter = 0;
  const newSession = async () => (await ledger.client.putAgentSession('items-by-id', `session-${++counter}`)).sessionId;
  const item = (sessionId: string, itemId: string) => ledger.client.getItem(sessionId, itemId);
  const missing = async (sessionId: string, itemId: string) => (await refusalOf(item(sessionId, itemId))).code;

  it('answers an item by its id, whatever characters the id holds, and 404 ITEM_NOT_FOUND for one the history does not hold', async () => {
    const { client } = ledger;
    const sessionId = await newSession();
    await client.appendItems(sessionId, { items: [{ id: 'checkpoint/child:1/abc', text: 'first' }, { id: 'plain', text: 'second' }, { text: 'no id' }] });
    const found = await item(sessionId, 'checkpoint/child:1/abc');
    expect(found).toMatchObject({
      sessionId,
      item: { id: 'checkpoint/child:1/abc', index: 0, item: { id: 'checkpoint/child:1/abc', text: 'first' } },
      itemCount: 3,
    });
    expect(typeof found.item.at).toBe('string');
    expect((await item(sessionId, 'plain')).item).toMatchObject({ index: 1, item: { text: 'second' } });
    expect(await refusalOf(item(sessionId, 'nothing-of-that-id'))).toEqual({ status: 404, code: 'ITEM_NOT_FOUND' });
    expect(await missing('ag_00000000000000000000000000000000', 'plain')).toBe('SESSION_NOT_FOUND');
  });

  it('does not answer an item popped, cleared or rolled back, and answers the one appended again after its removal', async () => {
    const { client } = ledger;
    const sessionId = await newSession();
    await client.appendItems(sessionId, {
      items: [
        { id: 'a', v: 1 },
        { id: 'b', v: 1 },
      ],
    });
    await client.popItem(sessionId);
    expect(await missing(sessionId, 'b')).toBe('ITEM_NOT_FOUND');
    await item(sessionId, 'a');
    await client.appendItems(sessionId, { items: [{ id: 'b', v: 2 }] });
    expect((await item(sessionId, 'b')).item).toMatchObject({ index: 1, item: { v: 2 } });

    const checkpoint = await client.createCheckpoint(sessionId);
    await client.appendItems(sessionId, { items: [{ id: 'c', v: 1 }] });
    await client.rollback(sessionId, checkpoint.checkpointId);
    expect(await missing(sessionId, 'c')).toBe('ITEM_NOT_FOUND');
    expect((await item(sessionId, 'b')).item.item).toEqual({ id: 'b', v: 2 });

    await client.clearItems(sessionId);
    expect(await missing(sessionId, 'a')).toBe('ITEM_NOT_FOUND');
  });

  it("answers the items a fork started with from its parent's history, and the fork's own", async () => {
    const { client } = ledger;
    const parent = await newSession();
    await client.appendItems(parent, { items: [{ id: 'p1', v: 'parent' }] });
    const checkpoint = await client.createCheckpoint(parent);
    await client.appendItems(parent, { items: [{ id: 'p2', v: 'after the fork point' }] });
    const fork = (await client.forkSession(parent, { checkpointId: checkpoint.checkpointId })).sessionId;
    await client.appendItems(fork, { items: [{ id: 'f1', v: 'fork' }] });
    expect((await item(fork, 'p1')).item).toMatchObject({ index: 0, item: { v: 'parent' } });
    expect((await item(fork, 'f1')).item).toMatchObject({ index: 1, item: { v: 'fork' } });
    expect(await missing(fork, 'p2')).toBe('ITEM_NOT_FOUND');
  });
});
