// RETENTION_* as configuration: per-platform days in a Map (a platform named __proto__ or constructor is one like any other), bad values refused.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { contentDaysFor, retentionPolicyIsEmpty } from '../../src/config/retentionSettings.js';

const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: ':memory:', ...env }).retention;

describe('retention settings', () => {
  it('are off by default', () => {
    const retention = load({});
    expect(retention).toEqual({ contentDays: null, contentDaysByPlatform: new Map(), keepCheckpoints: null, intervalMinutes: 60 });
    expect(retentionPolicyIsEmpty(retention)).toBe(true);
  });

  it('read per-platform days into a Map, where __proto__ and constructor are platforms and null keeps content for ever', () => {
    const retention = load({
      RETENTION_CONTENT_DAYS: '30',
      RETENTION_CONTENT_DAYS_BY_PLATFORM: '{"__proto__": 3, "constructor": 5, "slack": null}',
      RETENTION_KEEP_CHECKPOINTS: '10',
    });
    expect([...retention.contentDaysByPlatform]).toEqual([
      ['__proto__', 3],
      ['constructor', 5],
      ['slack', null],
    ]);
    expect(contentDaysFor(retention, '__proto__')).toBe(3);
    expect(contentDaysFor(retention, 'constructor')).toBe(5);
    expect(contentDaysFor(retention, 'slack')).toBeNull();
    expect(contentDaysFor(retention, 'toString')).toBe(30);
    expect(contentDaysFor(retention, 'telegram')).toBe(30);
  });

  it('a per-platform policy alone is a policy; a map of nulls alone is none', () => {
    expect(retentionPolicyIsEmpty(load({ RETENTION_CONTENT_DAYS_BY_PLATFORM: '{"discord": 7}' }))).toBe(false);
    expect(retentionPolicyIsEmpty(load({ RETENTION_CONTENT_DAYS_BY_PLATFORM: '{"discord": null}' }))).toBe(true);
  });

  it.each([
    ['RETENTION_CONTENT_DAYS', '0'],
    ['RETENTION_KEEP_CHECKPOINTS', '-1'],
    ['RETENTION_CONTENT_DAYS_BY_PLATFORM', '[7]'],
    ['RETENTION_CONTENT_DAYS_BY_PLATFORM', '{"Discord": 7}'],
    ['RETENTION_CONTENT_DAYS_BY_PLATFORM', '{"discord": 1.5}'],
    ['RETENTION_CONTENT_DAYS_BY_PLATFORM', 'not json'],
  ])('refuse %s=%s', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(ConfigError);
  });
});
