import { describe, expect, it } from 'vitest';
import { canonicalWhatsappId, resolveWhatsappId } from '../../src/modules/sessions/domain/canonicalWhatsappId.js';

describe('canonicalWhatsappId', () => {
  it.each([
    ['+15551234567', '15551234567'],
    ['15551234567', '15551234567'],
    ['15551234567@s.whatsapp.net', '15551234567'],
    ['15551234567:12@s.whatsapp.net', '15551234567'],
    ['+15551234567:3@s.whatsapp.net', '15551234567'],
    ['98765432109876@lid', '98765432109876'],
  ])('%s → %s', (raw, canonical) => {
    expect(canonicalWhatsappId(raw)).toBe(canonical);
  });

  it('strips only one leading plus and nothing else', () => {
    expect(canonicalWhatsappId('++1555')).toBe('+1555');
    expect(canonicalWhatsappId('1555+')).toBe('1555+');
  });

  it.each([undefined, '', '+', '@s.whatsapp.net', ':12@s.whatsapp.net', '+:1'])('treats %j as absent', (raw) => {
    expect(canonicalWhatsappId(raw)).toBeUndefined();
  });
});

describe('resolveWhatsappId', () => {
  it('returns the canonical id when no alias applies', () => {
    expect(resolveWhatsappId('15551234567@s.whatsapp.net', { '999': '111' })).toBe('15551234567');
  });

  it('maps an alias to its canonical id after canonicalising', () => {
    expect(resolveWhatsappId('98765432109876:4@lid', { '98765432109876': '15551234567' })).toBe('15551234567');
  });

  it('accepts alias maps written with JIDs or a plus', () => {
    expect(resolveWhatsappId('98765432109876', { '98765432109876@lid': '+15551234567' })).toBe('15551234567');
  });

  it('follows a single hop only', () => {
    expect(resolveWhatsappId('1', { '1': '2', '2': '3' })).toBe('2');
  });

  it('keeps absent ids absent', () => {
    expect(resolveWhatsappId('', { '': '15551234567' })).toBeUndefined();
  });
});
