// GatewayPlatformsRegistered v1 → v2: `piiSafe` in Hermes' meaning ("ids may be hashed here"), the inverse of v1's.
import type { JsonObject } from '../eventStore.js';
import type { EventUpcaster } from './eventUpcaster.js';

/**
 * v1's `piiSafe: true` said "show this platform's ids raw even when redacting" (Discord's mentions need them). Hermes'
 * `pii_safe` on a platform registry entry says the opposite: "ids may be hashed here". v2 takes Hermes' meaning, and
 * a v1 registration reads as what it meant: a platform registered raw is not redactable, one registered redacted is.
 */
export const gatewayPlatformsRegisteredV2: EventUpcaster = {
  type: 'GatewayPlatformsRegistered',
  fromVersion: 1,
  upcast(data) {
    const platforms = Array.isArray(data.platforms) ? data.platforms : [];
    return { ...data, platforms: platforms.map((entry) => ({ ...(entry as JsonObject), piiSafe: (entry as JsonObject).piiSafe !== true })) };
  },
};
