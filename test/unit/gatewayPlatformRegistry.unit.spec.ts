// The platform registry on a gateway's stream: a whole list that replaces the last, kept across starts and stops,
// merged across a tenant's live gateways into what the context prompt shows.
import { describe, expect, it } from 'vitest';
import type { GatewayEvent, RegisteredPlatform } from '../../src/events/gateway/gatewayEvents.js';
import { gatewayDecider, isLiveGateway } from '../../src/modules/gateways/domain/gatewayDecider.js';
import { platformRegistryView } from '../../src/modules/gateways/platformRegistry.js';
import { specification } from '../support/deciderSpecification.js';

const gateway = specification(gatewayDecider);
const now = '2026-06-01T12:00:00.000Z';
const telegram: RegisteredPlatform = { platform: 'telegram', displayName: 'Bot', homeChannel: { chatId: '-100', name: 'Ops' }, piiSafe: true };
const discord: RegisteredPlatform = { platform: 'discord', displayName: null, homeChannel: null, piiSafe: false };
const registered = (platforms: RegisteredPlatform[]): GatewayEvent => ({ type: 'GatewayPlatformsRegistered', data: { platforms, at: now } });
const started: GatewayEvent = {
  type: 'GatewayStarted',
  data: { bootId: 'boot-1', cleanShutdown: true, resume: [], suspended: [], marked: [], at: now },
};
const stopped: GatewayEvent = { type: 'GatewayStopped', data: { clean: true, drainTimedOut: [], drainedKeys: [], at: now } };

describe('gateway decider: RegisterPlatforms', () => {
  it('records the list sorted by platform', () =>
    gateway
      .given([])
      .when({ type: 'RegisterPlatforms', platforms: [telegram, discord], now })
      .then([registered([discord, telegram])]));

  it('appends nothing for the list already registered, in any order', () =>
    gateway
      .given([registered([discord, telegram])])
      .when({ type: 'RegisterPlatforms', platforms: [telegram, discord], now })
      .then([]));

  it('replaces the whole list: a platform left out is gone', () =>
    gateway
      .given([registered([discord, telegram])])
      .when({ type: 'RegisterPlatforms', platforms: [discord], now })
      .thenState({ platforms: [discord] }));

  it('an empty list unregisters every platform', () =>
    gateway
      .given([registered([telegram])])
      .when({ type: 'RegisterPlatforms', platforms: [], now })
      .then([registered([])]));

  it('a start and a stop keep the list; the stop takes the gateway out of the live ones until the next start', () => {
    const fold = (events: GatewayEvent[]) => events.reduce(gatewayDecider.evolve, gatewayDecider.initialState());
    expect(fold([registered([telegram])])).toMatchObject({ platforms: [telegram] });
    expect(isLiveGateway(fold([registered([telegram])]))).toBe(true);
    expect(isLiveGateway(fold([registered([telegram]), started]))).toBe(true);
    expect(fold([registered([telegram]), started, stopped])).toMatchObject({ platforms: [telegram] });
    expect(isLiveGateway(fold([registered([telegram]), started, stopped]))).toBe(false);
    expect(isLiveGateway(fold([registered([telegram]), started, stopped, started]))).toBe(true);
  });
});

describe('platformRegistryView', () => {
  it('lists each platform once, sorted, with the first display name and home channel by gateway id', () => {
    const view = platformRegistryView([
      { gatewayId: 'gw-b', platforms: [{ ...telegram, displayName: 'Second', homeChannel: { chatId: '-200', name: 'Later' } }] },
      { gatewayId: 'gw-a', platforms: [telegram, discord] },
    ]);
    expect(view.platforms).toEqual([
      { platform: 'discord', displayName: null },
      { platform: 'telegram', displayName: 'Bot' },
    ]);
    expect(view.homeChannels).toEqual([{ platform: 'telegram', chatId: '-100', name: 'Ops' }]);
  });

  it("piiSafe (ids may be hashed): Hermes' set by default, a registered platform as any live gateway registering it says", () => {
    expect([...platformRegistryView([]).piiSafePlatforms].sort()).toEqual(['bluebubbles', 'signal', 'telegram', 'whatsapp']);
    expect(platformRegistryView([{ gatewayId: 'a', platforms: [{ ...discord, piiSafe: true }] }]).piiSafePlatforms.has('discord')).toBe(true);
    expect(platformRegistryView([{ gatewayId: 'a', platforms: [{ ...telegram, piiSafe: false }] }]).piiSafePlatforms.has('telegram')).toBe(false);
    const split = platformRegistryView([
      { gatewayId: 'a', platforms: [{ ...telegram, piiSafe: false }] },
      { gatewayId: 'b', platforms: [{ ...telegram, piiSafe: true }] },
    ]);
    expect(split.piiSafePlatforms.has('telegram')).toBe(true);
  });
});

describe('an event type from a newer version of the service (a rolling upgrade)', () => {
  it('leaves the folded state as it is', () => {
    const folded = [started, registered([telegram])].reduce(gatewayDecider.evolve, gatewayDecider.initialState());
    expect(gatewayDecider.evolve(folded, { type: 'FromANewerVersion', data: { at: '2026-07-01T00:00:00.000Z' } } as never)).toEqual(folded);
  });
});
