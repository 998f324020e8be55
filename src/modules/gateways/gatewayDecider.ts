// The gateway decider: a clean-shutdown marker that survives the process, and starts that are idempotent per boot.
import type { Decider } from '../../events/decider.js';
import type { GatewayEvent, StartOutcome } from '../../events/gateway/gatewayEvents.js';

export interface GatewayState {
  status: 'unknown' | 'running' | 'stopping' | 'stopped';
  lastBootId: string | null;
  lastStart: StartOutcome | null;
  stoppingMode: 'restart' | 'shutdown' | null;
  stoppingKeys: string[];
  /** A clean stop recorded since the last start: the next start skips crash recovery. */
  cleanStopSinceStart: boolean;
}

export const initialGatewayState = (): GatewayState => ({
  status: 'unknown',
  lastBootId: null,
  lastStart: null,
  stoppingMode: null,
  stoppingKeys: [],
  cleanStopSinceStart: false,
});

export type GatewayCommand =
  | { type: 'RecordStopping'; mode: 'restart' | 'shutdown'; activeKeys: string[]; now: string }
  | { type: 'RecordStopped'; drainTimedOut: string[]; now: string }
  | { type: 'RecordStarted'; bootId: string; outcome: StartOutcome; now: string };

export function evolveGateway(state: GatewayState, event: GatewayEvent): GatewayState {
  switch (event.type) {
    case 'GatewayStarted': {
      const { bootId, at: _at, ...outcome } = event.data;
      return { ...initialGatewayState(), status: 'running', lastBootId: bootId, lastStart: outcome };
    }
    case 'GatewayStopping':
      return { ...state, status: 'stopping', stoppingMode: event.data.mode, stoppingKeys: event.data.activeKeys };
    case 'GatewayStopped':
      return { ...state, status: 'stopped', cleanStopSinceStart: event.data.clean };
    default: {
      const unknown: never = event;
      return unknown;
    }
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
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const gatewayDecider: Decider<GatewayState, GatewayCommand, GatewayEvent> = {
  initialState: initialGatewayState,
  evolve: evolveGateway,
  decide: decideGateway,
};
