// HEAP_GROWTH_PERCENT: the V8 flag the service sets at start, unless node was already told how its heap grows.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { heapGrowthFlag, nodeStartFlags } from '../../src/app/heapGrowth.js';

describe('HEAP_GROWTH_PERCENT', () => {
  it('defaults to 50 and takes 0 (V8 decides) to 1000', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(50);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '1000' }).heapGrowthPercent).toBe(1000);
  });

  it.each(['-1', '1001', '12.5', 'fifty'])('refuses %s', (value) => {
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: value })).toThrow(ConfigError);
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: value })).toThrow(/HEAP_GROWTH_PERCENT/);
  });

  it("becomes V8's --heap-growing-percent", () => {
    expect(heapGrowthFlag(50, [])).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag(50, ['--max-old-space-size=512', '--enable-source-maps'])).toBe('--heap-growing-percent=50');
  });

  it('leaves V8 alone at 0', () => {
    expect(heapGrowthFlag(0, [])).toBeUndefined();
  });

  it('leaves V8 alone when node was given the flag itself, in either spelling, in its arguments or NODE_OPTIONS', () => {
    expect(heapGrowthFlag(50, nodeStartFlags(['--heap-growing-percent=20'], ''))).toBeUndefined();
    expect(heapGrowthFlag(50, nodeStartFlags([], '--enable-source-maps  --heap_growing_percent=80'))).toBeUndefined();
  });
});
