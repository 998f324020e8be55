// Reset policies: Hermes' shape and defaults, the precedence, idle/daily/both, DST days for at_hour, busy conversations, the notice.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import type { ResetPolicy } from '../../src/events/conversation/resetPolicy.js';
import { latestDailyBoundary } from '../../src/modules/conversations/resetPolicy/dailyBoundary.js';
import { effectiveResetPolicy } from '../../src/modules/conversations/resetPolicy/effectiveResetPolicy.js';
import { resetBlockedBy, resetDueReason } from '../../src/modules/conversations/resetPolicy/resetDue.js';
import { autoResetNotice } from '../../src/modules/conversations/resetPolicy/resetNotice.js';
import { defaultResetPolicy, resetPolicySchema } from '../../src/config/resetPolicySettings.js';

const policy = (given: Partial<ResetPolicy>): ResetPolicy => ({ ...defaultResetPolicy, ...given });

describe('the policy shape', () => {
  it('is off by default, with Hermes defaults for every field', () => {
    expect(resetPolicySchema.parse({})).toEqual({
      mode: 'none',
      at_hour: 4,
      idle_minutes: 1440,
      notify: true,
      notify_exclude_platforms: ['api_server', 'webhook'],
      bg_process_max_age_hours: 24,
    });
    expect(loadConfig({}).sessions.reset).toEqual({ default: defaultResetPolicy, byPlatform: new Map(), byType: {}, timeZone: 'UTC' });
  });

  it('takes a null field as its default, as Hermes reads a YAML null, and fractions of a minute', () => {
    expect(resetPolicySchema.parse({ mode: 'idle', idle_minutes: 0.05, at_hour: null })).toMatchObject({ mode: 'idle', idle_minutes: 0.05, at_hour: 4 });
  });

  it('reads the variables, and a bad value stops the start naming the variable', () => {
    const config = loadConfig({
      SESSION_RESET: '{"mode":"both"}',
      SESSION_RESET_BY_PLATFORM: '{"telegram":{"mode":"idle","idle_minutes":60}}',
      SESSION_RESET_BY_TYPE: '{"group":{"mode":"daily","at_hour":6}}',
      SESSION_RESET_TIMEZONE: 'Europe/Berlin',
    });
    expect(config.sessions.reset.default.mode).toBe('both');
    expect(config.sessions.reset.byPlatform.get('telegram')).toMatchObject({ mode: 'idle', idle_minutes: 60 });
    expect(config.sessions.reset.byType.group).toMatchObject({ mode: 'daily', at_hour: 6 });
    expect(config.sessions.reset.timeZone).toBe('Europe/Berlin');
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ SESSION_RESET: '{mode: idle}' }, /SESSION_RESET: not JSON/],
      [{ SESSION_RESET: '{"mode":"weekly"}' }, /SESSION_RESET\.mode/],
      [{ SESSION_RESET: '{"at_hour":24}' }, /SESSION_RESET\.at_hour/],
      [{ SESSION_RESET: '{"idle_minutes":0}' }, /SESSION_RESET\.idle_minutes/],
      [{ SESSION_RESET: '{"mode":"idle","idle_minute":5}' }, /SESSION_RESET: .*idle_minute/],
      [{ SESSION_RESET_BY_PLATFORM: '{"Tele gram":{}}' }, /SESSION_RESET_BY_PLATFORM\.Tele gram: platform names/],
      [{ SESSION_RESET_BY_PLATFORM: '{"telegram":{"mode":"weekly"}}' }, /SESSION_RESET_BY_PLATFORM\.telegram\.mode/],
      [{ SESSION_RESET_BY_PLATFORM: '[]' }, /SESSION_RESET_BY_PLATFORM: a JSON object/],
      [{ SESSION_RESET_BY_TYPE: '{"channelz":{}}' }, /SESSION_RESET_BY_TYPE/],
      [{ SESSION_RESET_TIMEZONE: 'Mars/Olympus' }, /SESSION_RESET_TIMEZONE/],
    ];
    for (const [environment, message] of refusals) {
      expect(() => loadConfig(environment)).toThrow(ConfigError);
      expect(() => loadConfig(environment)).toThrow(message);
    }
  });
});

describe('precedence', () => {
  const rules = {
    default: policy({ mode: 'both' }),
    byPlatform: new Map([
      ['telegram', policy({ mode: 'idle' })],
      ['__proto__', policy({ mode: 'idle' })],
    ]),
    byType: { group: policy({ mode: 'daily' }) },
    timeZone: 'UTC',
  };
  it("is the conversation's own policy, then platform, then chat type, then the default: Hermes' order", () => {
    expect(effectiveResetPolicy(rules, { platform: 'telegram', chatType: 'group' }, null).mode).toBe('idle');
    expect(effectiveResetPolicy(rules, { platform: 'discord', chatType: 'group' }, null).mode).toBe('daily');
    expect(effectiveResetPolicy(rules, { platform: 'discord', chatType: 'dm' }, null).mode).toBe('both');
    expect(effectiveResetPolicy(rules, { platform: 'telegram', chatType: 'group' }, policy({ mode: 'none' })).mode).toBe('none');
  });

  it('reads a platform named like an Object member as a platform: its own entry, else the chat type or the default', () => {
    expect(effectiveResetPolicy(rules, { platform: '__proto__', chatType: 'dm' }, null).mode).toBe('idle');
    expect(effectiveResetPolicy(rules, { platform: 'constructor', chatType: 'dm' }, null).mode).toBe('both');
    expect(effectiveResetPolicy(rules, { platform: 'constructor', chatType: 'group' }, null).mode).toBe('daily');
    const configured = loadConfig({ SESSION_RESET_BY_PLATFORM: '{"__proto__":{"mode":"idle"},"constructor":{"mode":"daily"}}' }).sessions.reset.byPlatform;
    expect([...configured.keys()]).toEqual(['__proto__', 'constructor']);
  });
});

describe("Hermes' _should_reset", () => {
  it('idle: only once now is past the last activity plus idle_minutes', () => {
    const idle = policy({ mode: 'idle', idle_minutes: 0.5 });
    expect(resetDueReason(idle, '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:30.000Z', 'UTC')).toBeNull();
    expect(resetDueReason(idle, '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:30.001Z', 'UTC')).toBe('idle');
  });

  it('daily: when the last activity is before the latest at_hour boundary', () => {
    const daily = policy({ mode: 'daily', at_hour: 4 });
    expect(resetDueReason(daily, '2026-03-01T03:59:00.000Z', '2026-03-01T03:59:59.000Z', 'UTC')).toBeNull();
    expect(resetDueReason(daily, '2026-03-01T03:59:00.000Z', '2026-03-01T04:00:00.000Z', 'UTC')).toBe('daily');
    expect(resetDueReason(daily, '2026-03-01T04:00:00.000Z', '2026-03-02T03:00:00.000Z', 'UTC')).toBeNull();
  });

  it('both: whichever comes first, idle checked first', () => {
    const both = policy({ mode: 'both', at_hour: 4, idle_minutes: 60 });
    expect(resetDueReason(both, '2026-03-01T03:30:00.000Z', '2026-03-01T04:10:00.000Z', 'UTC')).toBe('daily');
    expect(resetDueReason(both, '2026-03-01T05:00:00.000Z', '2026-03-01T06:01:00.000Z', 'UTC')).toBe('idle');
    expect(resetDueReason(both, '2026-03-01T03:00:00.000Z', '2026-03-01T05:00:00.000Z', 'UTC')).toBe('idle');
    expect(resetDueReason(policy({ mode: 'none' }), '2020-01-01T00:00:00.000Z', '2026-03-01T05:00:00.000Z', 'UTC')).toBeNull();
  });
});

describe('at_hour in a zone with DST (America/New_York)', () => {
  const zone = 'America/New_York';
  it('is 04:00 local on ordinary days, winter and summer', () => {
    expect(latestDailyBoundary(new Date('2026-01-15T12:00:00Z'), 4, zone).toISOString()).toBe('2026-01-15T09:00:00.000Z');
    expect(latestDailyBoundary(new Date('2026-07-15T12:00:00Z'), 4, zone).toISOString()).toBe('2026-07-15T08:00:00.000Z');
    // Before today's boundary, yesterday's holds.
    expect(latestDailyBoundary(new Date('2026-07-15T07:59:59Z'), 4, zone).toISOString()).toBe('2026-07-14T08:00:00.000Z');
  });

  it('spring forward (8 March 2026, 02:00 → 03:00): 04:00 is four UTC hours off; an hour that never happens falls at the jump', () => {
    expect(latestDailyBoundary(new Date('2026-03-08T12:00:00Z'), 4, zone).toISOString()).toBe('2026-03-08T08:00:00.000Z');
    expect(latestDailyBoundary(new Date('2026-03-08T12:00:00Z'), 2, zone).toISOString()).toBe('2026-03-08T07:00:00.000Z');
    // The day before the jump still has its 04:00 EST.
    expect(latestDailyBoundary(new Date('2026-03-08T07:30:00Z'), 4, zone).toISOString()).toBe('2026-03-07T09:00:00.000Z');
  });

  it('fall back (1 November 2026, 02:00 → 01:00): an hour that happens twice counts the first time', () => {
    expect(latestDailyBoundary(new Date('2026-11-01T12:00:00Z'), 4, zone).toISOString()).toBe('2026-11-01T09:00:00.000Z');
    expect(latestDailyBoundary(new Date('2026-11-01T12:00:00Z'), 1, zone).toISOString()).toBe('2026-11-01T05:00:00.000Z');
  });

  it('a daily policy resets once across the DST day, at the local hour', () => {
    const daily = policy({ mode: 'daily', at_hour: 4 });
    // 03:30 EDT on the spring-forward day is 07:30Z; the boundary is 08:00Z.
    expect(resetDueReason(daily, '2026-03-08T06:00:00.000Z', '2026-03-08T07:30:00.000Z', zone)).toBeNull();
    expect(resetDueReason(daily, '2026-03-08T06:00:00.000Z', '2026-03-08T08:00:00.000Z', zone)).toBe('daily');
    // In UTC the same instants cross 04:00Z the other way round.
    expect(resetDueReason(daily, '2026-03-08T06:00:00.000Z', '2026-03-08T08:00:00.000Z', 'UTC')).toBeNull();
  });
});

describe('a busy conversation never resets', () => {
  const idle = policy({ mode: 'idle', bg_process_max_age_hours: 24 });
  const quiet = { turnInFlight: false, runtimeTurnActive: false, queuedMessages: 0, backgroundProcessSince: null };
  const now = '2026-03-02T12:00:00.000Z';
  it('names what keeps it', () => {
    expect(resetBlockedBy(quiet, idle, now)).toBeNull();
    expect(resetBlockedBy({ ...quiet, turnInFlight: true }, idle, now)).toBe('turn_in_flight');
    expect(resetBlockedBy({ ...quiet, runtimeTurnActive: true }, idle, now)).toBe('runtime_turn');
    expect(resetBlockedBy({ ...quiet, queuedMessages: 1 }, idle, now)).toBe('queued_messages');
  });
  it('a background process counts until bg_process_max_age_hours old; 0 keeps any live one counting', () => {
    expect(resetBlockedBy({ ...quiet, backgroundProcessSince: '2026-03-01T12:00:01.000Z' }, idle, now)).toBe('background_process');
    expect(resetBlockedBy({ ...quiet, backgroundProcessSince: '2026-03-01T12:00:00.000Z' }, idle, now)).toBeNull();
    expect(resetBlockedBy({ ...quiet, backgroundProcessSince: '2020-01-01T00:00:00.000Z' }, policy({ bg_process_max_age_hours: 0 }), now)).toBe(
      'background_process',
    );
  });
});

describe('the notice', () => {
  it('says why, when notify is on, the platform is not excluded and the session had activity', () => {
    expect(autoResetNotice('idle', policy({ idle_minutes: 1440 }), 'telegram', true, 'UTC')).toMatch(/^Session reset after 24 hours of inactivity\./);
    expect(autoResetNotice('idle', policy({ idle_minutes: 0.05 }), 'telegram', true, 'UTC')).toMatch(/after 3 seconds of inactivity/);
    expect(autoResetNotice('daily', policy({ at_hour: 4 }), 'telegram', true, 'Europe/Berlin')).toMatch(/daily reset at 04:00 \(Europe\/Berlin\)/);
    expect(autoResetNotice('idle', policy({ notify: false }), 'telegram', true, 'UTC')).toBeNull();
    expect(autoResetNotice('idle', policy({}), 'api_server', true, 'UTC')).toBeNull();
    expect(autoResetNotice('idle', policy({}), 'telegram', false, 'UTC')).toBeNull();
  });
});
