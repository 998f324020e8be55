// The console's one-line summary of an appended item: LangGraph's checkpoints, channel values, writes and chat messages
// read as what they hold; any other item as its id, type and role.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const modulePath = pathToFileURL(resolve(import.meta.dirname, '../../src/console/public/js/eventSummary.js')).href;
const { eventSummary } = (await import(modulePath)) as { eventSummary: (event: object) => string };
const appended = (item: object) => eventSummary({ type: 'ItemAppended', data: { itemId: 'item-7', position: 7, item, at: '2026-12-05T10:00:00.000Z' } });

describe('console: summaries of appended items', () => {
  it("says what LangGraph's items are", () => {
    expect(
      appended({ type: 'langgraph.checkpoint', checkpointId: '1f1f-aa', checkpointNs: '', source: 'loop', step: 0, wroteChannels: ['messages', 'reply'] }),
    ).toBe('item 7 LangGraph checkpoint 1f1f-aa · loop step 0 · wrote messages, reply');
    expect(appended({ type: 'langgraph.checkpoint', checkpointId: '1f1f-bb', checkpointNs: 'review:3c', source: 'input', step: -1, wroteChannels: [] })).toBe(
      'item 7 LangGraph checkpoint 1f1f-bb in review:3c · input step -1',
    );
    expect(appended({ type: 'langgraph.write', channel: 'messages', taskId: 'task-1', checkpointId: '1f1f-aa' })).toBe(
      'item 7 LangGraph write to messages by task task-1 for checkpoint 1f1f-aa',
    );
    expect(appended({ type: 'langgraph.channel', channel: 'messages', version: '2.5', checkpointNs: 'review:3c', value: { type: 'json', data: 'e30=' } })).toBe(
      'item 7 LangGraph channel messages version 2.5 in review:3c',
    );
    expect(
      appended({ type: 'langgraph.channel', channel: 'draft', version: '00000000000000000000000000000003.091095400553805', checkpointNs: '', value: null }),
    ).toBe('item 7 LangGraph channel draft version 3.091095400553805 (emptied)');
    expect(appended({ type: 'langgraph.channel', channel: 'count', version: '0', checkpointNs: '', value: null })).toBe(
      'item 7 LangGraph channel count version 0 (emptied)',
    );
    expect(appended({ type: 'langgraph.channel-part', data: 'AAAA' })).toBe('item 7 LangGraph channel value, continued');
    expect(appended({ type: 'langgraph.namespace', checkpointNs: '' })).toBe('item 7 LangGraph namespace (root) begins');
  });

  it('quotes a chat message, and reads any other item by its id, type and role', () => {
    expect(appended({ type: 'message', role: 'user', content: 'hello there' })).toBe('item 7 user: “hello there”');
    expect(appended({ type: 'function_call', role: 'assistant' })).toBe('item 7 item-7 · function_call assistant');
    // A LangGraph item of an unexpected shape still says something, never undefined or [object Object].
    expect(appended({ type: 'langgraph.checkpoint', checkpointId: { odd: true } })).toBe('item 7 LangGraph checkpoint (odd yes)');
  });
});
