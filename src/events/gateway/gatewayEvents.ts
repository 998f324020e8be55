// Events of a `gateway-<id>` stream: the gateway process's starts and stops (restart recovery), and the platforms it serves.
import { scopedStreamName } from '../streamScope.js';
import type { SessionSource } from '../conversation/sessionSource.js';
import type { ResumeReason } from '../conversation/conversationEvents.js';

export interface ResumeCandidate {
  sessionKey: string;
  sessionId: string;
  reason: ResumeReason;
  origin: SessionSource;
}

export interface StartOutcome {
  cleanShutdown: boolean;
  resume: ResumeCandidate[];
  suspended: string[];
  /** Conversations this start marked resume-pending (restart_interrupted). */
  marked: string[];
  /** Started turns of this gateway's sessions that this start gave up (TurnAbandoned, gateway_restart). Absent in starts recorded before it existed. */
  abandonedTurns?: AbandonedTurnRef[];
  /** Conversations whose queue holds this start's continuation at its head (auto-continue). Absent in starts recorded before it existed. */
  continued?: string[];
}

export interface AbandonedTurnRef {
  sessionId: string;
  turnIndex: number;
}

/** One platform a gateway is connected to, as it registered it (PUT /v1/gateways/{id}/platforms). */
export interface RegisteredPlatform {
  platform: string;
  displayName: string | null;
  /** Where scheduled-job output for this platform goes by default. */
  homeChannel: { chatId: string; name: string } | null;
  /**
   * Hermes' `pii_safe`: this platform's user and chat ids may be hashed when the context prompt redacts PII (nothing
   * there needs a raw id to mention someone). Stored with the inverse meaning before v2 (gatewayPlatformsRegisteredV2).
   */
  piiSafe: boolean;
}

export type GatewayEvent =
  | { type: 'GatewayStarted'; data: StartOutcome & { bootId: string; at: string } }
  | { type: 'GatewayStopping'; data: { mode: 'restart' | 'shutdown'; activeKeys: string[]; at: string } }
  | { type: 'GatewayStopped'; data: { clean: boolean; drainTimedOut: string[]; drainedKeys: string[]; at: string } }
  /** The gateway's whole list, sorted by platform: it replaces the one registered before. */
  | { type: 'GatewayPlatformsRegistered'; data: { platforms: RegisteredPlatform[]; at: string } };

/** `tenant` namespaces the stream (see streamScope.ts); without one it is the default tenant's. */
export function gatewayStreamName(gatewayId: string, tenant?: string): string {
  return scopedStreamName(`gateway-${gatewayId}`, tenant);
}
