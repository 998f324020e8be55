// EMBEDDED_SHARED_BUFFERS: the embedded database's buffer pool, which lives in the service's own memory.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { PglitePool } from '../../src/database/pglitePool.js';

describe('EMBEDDED_SHARED_BUFFERS', () => {
  it("defaults to 32MB, a quarter of PGlite's default", () => {
    expect(loadConfig({}).embeddedSharedBuffers).toBe('32MB');
    expect(loadConfig({ EMBEDDED_SHARED_BUFFERS: '256MB' }).embeddedSharedBuffers).toBe('256MB');
  });

  it.each(['32', '32mb', '0MB', '-8MB', '32MB; DROP', '1TB'])('refuses %s', (value) => {
    expect(() => loadConfig({ EMBEDDED_SHARED_BUFFERS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDED_SHARED_BUFFERS: value })).toThrow(/EMBEDDED_SHARED_BUFFERS/);
  });

  it('opens the embedded database with that buffer pool', async () => {
    const pool = await PglitePool.open({ sharedBuffers: '16MB' });
    try {
      const { rows } = await pool.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(rows[0]?.shared_buffers).toBe('16MB');
    } finally {
      await pool.end();
    }
  });
});
