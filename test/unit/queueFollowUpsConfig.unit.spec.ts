// QUEUE_FOLLOW_UPS: what an interrupting follow-up does when another waits; QUEUE_MERGE_TEXT is its older spelling of merge.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('QUEUE_FOLLOW_UPS', () => {
  it("defaults to fifo, Hermes' gateway/run.py: each follow-up a turn of its own", () => {
    expect(loadConfig({}).queue.followUps).toBe('fifo');
  });

  it.each(['fifo', 'merge', 'replace'] as const)('takes %s', (value) => {
    expect(loadConfig({ QUEUE_FOLLOW_UPS: value }).queue.followUps).toBe(value);
  });

  it('reads QUEUE_MERGE_TEXT=true as merge, alone or beside QUEUE_FOLLOW_UPS=merge', () => {
    expect(loadConfig({ QUEUE_MERGE_TEXT: 'true' }).queue.followUps).toBe('merge');
    expect(loadConfig({ QUEUE_MERGE_TEXT: 'true', QUEUE_FOLLOW_UPS: 'merge' }).queue.followUps).toBe('merge');
    expect(loadConfig({ QUEUE_MERGE_TEXT: 'false', QUEUE_FOLLOW_UPS: 'replace' }).queue.followUps).toBe('replace');
  });

  it('refuses QUEUE_MERGE_TEXT=true beside another mode, and a mode it does not know', () => {
    expect(() => loadConfig({ QUEUE_MERGE_TEXT: 'true', QUEUE_FOLLOW_UPS: 'replace' })).toThrow(ConfigError);
    expect(() => loadConfig({ QUEUE_MERGE_TEXT: 'true', QUEUE_FOLLOW_UPS: 'fifo' })).toThrow(/QUEUE_MERGE_TEXT=true is QUEUE_FOLLOW_UPS=merge/);
    expect(() => loadConfig({ QUEUE_FOLLOW_UPS: 'coalesce' })).toThrow(/QUEUE_FOLLOW_UPS/);
  });
});
