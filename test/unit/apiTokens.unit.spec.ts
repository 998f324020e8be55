// API_TOKEN parsing: one bare secret, or several named, scoped, optionally tenant-bound tokens.
import { describe, expect, it } from 'vitest';
import { parseApiTokens, scopeAllows } from '../../src/config/apiTokens.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const secret = (letter: string) => letter.repeat(20);

describe('API_TOKEN', () => {
  it('takes one bare secret as the admin token named "api"', () => {
    expect(parseApiTokens(secret('a'))).toEqual([{ name: 'api', scope: 'admin', secret: secret('a') }]);
  });

  it('takes several named tokens with scopes and tenants, secrets that contain = and :', () => {
    const tokens = parseApiTokens(`ops:admin=${secret('a')}, reader:read=${secret('b')}==,\n acme-bot:write:acme=x:${secret('c')}`);
    expect(tokens).toEqual([
      { name: 'ops', scope: 'admin', secret: secret('a') },
      { name: 'reader', scope: 'read', secret: `${secret('b')}==` },
      { name: 'acme-bot', scope: 'write', tenant: 'acme', secret: `x:${secret('c')}` },
    ]);
  });

  it.each([
    ['an unknown scope', `ops:root=${secret('a')}`, /scope must be one of read, write, admin/],
    ['a short secret', `ops:admin=short`, /at least 16 characters/],
    ['a bare secret among named ones', `ops:admin=${secret('a')},${secret('b')}`, /entry 2 must be name:scope/],
    ['a repeated name', `ops:admin=${secret('a')},ops:read=${secret('b')}`, /used twice/],
    ['a repeated secret', `ops:admin=${secret('a')},bot:read=${secret('a')}`, /same secret/],
    ['a tenant-bound admin', `ops:admin:acme=${secret('a')}`, /cannot have the admin scope/],
    ['a bad tenant name', `bot:write:Acme Corp=${secret('a')}`, /tenant must be/],
    // A '-' would let `conversation-x~…`, a default-tenant key's stream, read as tenant `conversation-x`'s.
    ['a tenant name with a dash', `bot:write:conversation-x=${secret('a')}`, /tenant must be/],
    ['nothing but commas', ' , ,', /holds no token/],
  ])('refuses %s', (_case, value, message) => {
    expect(() => parseApiTokens(value)).toThrow(message);
  });

  it('never repeats a secret in its error messages', () => {
    const value = `ops:admin=${secret('q')},ops:read=${secret('r')}`;
    try {
      loadConfig({ API_TOKEN: value });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('API_TOKEN');
      expect((error as Error).message).not.toContain(secret('q'));
      expect((error as Error).message).not.toContain(secret('r'));
    }
  });

  it('orders scopes read < write < admin', () => {
    expect(scopeAllows('admin', 'write')).toBe(true);
    expect(scopeAllows('write', 'read')).toBe(true);
    expect(scopeAllows('write', 'admin')).toBe(false);
    expect(scopeAllows('read', 'write')).toBe(false);
  });
});
