import { describe, expect, it } from 'vitest';
import { isSessionId, newSessionId, randomSessionIdSuffix } from '../../src/modules/sessions/domain/sessionId.js';

describe('newSessionId', () => {
  it('formats the UTC time and the random suffix as YYYYMMDD_HHMMSS_<8 hex>', () => {
    expect(newSessionId(new Date('2026-06-16T09:05:07.999Z'), 'a1b2c3d4')).toBe('20260616_090507_a1b2c3d4');
  });

  it('uses UTC, not the local time of the offset written in the input', () => {
    expect(newSessionId(new Date('2026-01-01T01:30:00+05:00'), '00000000')).toBe('20251231_203000_00000000');
  });

  it('pads every field', () => {
    expect(newSessionId(new Date(Date.UTC(987, 0, 2, 3, 4, 5)), 'ffffffff')).toBe('09870102_030405_ffffffff');
  });

  it.each(['A1B2C3D4', 'a1b2c3', 'a1b2c3d4e', 'g1b2c3d4'])('rejects the suffix %j', (suffix) => {
    expect(() => newSessionId(new Date(), suffix)).toThrow(RangeError);
  });

  it('rejects an invalid date', () => {
    expect(() => newSessionId(new Date(Number.NaN), 'a1b2c3d4')).toThrow(RangeError);
  });

  it('sorts lexically in creation order', () => {
    const earlier = newSessionId(new Date('2026-06-16T09:59:59Z'), 'ffffffff');
    const later = newSessionId(new Date('2026-06-16T10:00:00Z'), '00000000');
    expect(earlier < later).toBe(true);
  });
});

describe('randomSessionIdSuffix', () => {
  it('gives 8 lowercase hex digits that newSessionId accepts', () => {
    const suffix = randomSessionIdSuffix();
    expect(suffix).toMatch(/^[0-9a-f]{8}$/);
    expect(isSessionId(newSessionId(new Date(), suffix))).toBe(true);
  });
});

describe('isSessionId', () => {
  it('accepts what newSessionId produces', () => {
    expect(isSessionId('20260616_090507_a1b2c3d4')).toBe(true);
    expect(isSessionId('20240229_235959_00000000')).toBe(true);
  });

  it.each([
    '',
    '20260616_090507',
    '20260616-090507-a1b2c3d4',
    '20260616_090507_A1B2C3D4',
    '20260616_090507_a1b2c3d',
    ' 20260616_090507_a1b2c3d4',
    '20261316_090507_a1b2c3d4',
    '20250229_090507_a1b2c3d4',
    '20260600_090507_a1b2c3d4',
    '20260616_240000_a1b2c3d4',
    '20260616_096000_a1b2c3d4',
    '20260616_090560_a1b2c3d4',
  ])('rejects %j', (value) => {
    expect(isSessionId(value)).toBe(false);
  });
});
