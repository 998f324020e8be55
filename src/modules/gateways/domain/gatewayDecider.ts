// The gateway decider: a clean-shutdown marker that survives the process, starts that are idempotent per boot, the platform registry.
import { type Decider, unknownEventType } from '../../../events/decider.js';
import type { GatewayEvent, RegisteredPlatform, StartOutcome } from '../../../events/gateway/gatewayEvents.js';

export interface GatewayState {
  status: 'unknown' | 'running' | 'stopping' | 'stopped';
  lastBootId: string | null;
  lastStart: StartOutcome | null;
  stoppingMode: 'restart' | 'shutdown' | null;
  stoppingKeys: string[];
  /** A clean stop recorded since the last start: the next start skips crash recovery. */
  cleanStopSinceStart: boolean;
  /** What the gateway last registered, sorted by platform; a start or stop keeps it. */
  platforms: RegisteredPlatform[];
}

export const initialGatewayState = (): GatewayState => ({
  status: 'unknown',
  lastBootId: null,
  lastStart: null,
  stoppingMode: null,
  stoppingKeys: [],
  cleanStopSinceStart: false,
  platforms: [],
});

/**
 * Live: from the gateway's first event (a start or a registration: the restart protocol is optional) until it reports
 * a stop (GatewayStopped), and again from its next start; a drain (GatewayStopping) still serves. Gateways send no
 * heartbeat, so one that dies without a stop stays live until its next start says what happened.
 */
export const isLiveGateway = (state: GatewayState): boolean => state.status !== 'stopped';

export type GatewayCommand =
  | { type: 'RecordStopping'; mode: 'restart' | 'shutdown'; activeKeys: string[]; now: string }
  | { type: 'RecordStopped'; drainTimedOut: string[]; now: string }
  | { type: 'RecordStarted'; bootId: string; outcome: StartOutcome; now: string }
  | { type: 'RegisterPlatforms'; platforms: readonly RegisteredPlatform[]; now: string };

export function evolveGateway(state: GatewayState, event: GatewayEvent): GatewayState {
  switch (event.type) {
    case 'GatewayStarted': {
      const { bootId, at: _at, ...outcome } = event.data;
      return { ...initialGatewayState(), platforms: state.platforms, status: 'running', lastBootId: bootId, lastStart: outcome };
    }
    case 'GatewayStopping':
      return { ...state, status: 'stopping', stoppingMode: event.data.mode, stoppingKeys: event.data.activeKeys };
    case 'GatewayStopped':
      return { ...state, status: 'stopped', cleanStopSinceStart: event.data.clean };
    case 'GatewayPlatformsRegistered':
      return { ...state, platforms: event.data.platforms };
    default:
      return unknownEventType(event, state);
  }
}

export function decideGateway(command: GatewayCommand, state: GatewayState): GatewayEvent[] {
  switch (command.type) {
    case 'RecordStopping':
      return [{ type: 'GatewayStopping', data: { mode: command.mode, activeKeys: command.activeKeys, at: command.now } }];
    case 'RecordStopped': {
      const timedOut = new Set(command.drainTimedOut);
      const drainedKeys = state.stoppingKeys.filter((key) => !timedOut.has(key));
      return [
        { type: 'GatewayStopped', data: { clean: command.drainTimedOut.length === 0, drainTimedOut: command.drainTimedOut, drainedKeys, at: command.now } },
      ];
    }
    case 'RecordStarted':
      if (state.lastBootId === command.bootId) return [];
      return [{ type: 'GatewayStarted', data: { bootId: command.bootId, ...command.outcome, at: command.now } }];
    case 'RegisterPlatforms': {
      const platforms = command.platforms.map(canonicalPlatform).sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
      // The whole list replaces the last one; the same list again changes nothing, so nothing is appended.
      if (platforms.length === state.platforms.length && platforms.every((entry, index) => samePlatform(entry, state.platforms[index]!))) return [];
      return [{ type: 'GatewayPlatformsRegistered', data: { platforms, at: command.now } }];
    }
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

/** Only the registry's fields, whatever else the caller's object carries. */
function canonicalPlatform({ platform, displayName, homeChannel, piiSafe }: RegisteredPlatform): RegisteredPlatform {
  return { platform, displayName, homeChannel: homeChannel && { chatId: homeChannel.chatId, name: homeChannel.name }, piiSafe };
}

function samePlatform(a: RegisteredPlatform, b: RegisteredPlatform): boolean {
  const sameHome =
    a.homeChannel === null || b.homeChannel === null
      ? a.homeChannel === b.homeChannel
      : a.homeChannel.chatId === b.homeChannel.chatId && a.homeChannel.name === b.homeChannel.name;
  return a.platform === b.platform && a.displayName === b.displayName && a.piiSafe === b.piiSafe && sameHome;
}

export const gatewayDecider: Decider<GatewayState, GatewayCommand, GatewayEvent> = {
  initialState: initialGatewayState,
  evolve: evolveGateway,
  decide: decideGateway,
};
