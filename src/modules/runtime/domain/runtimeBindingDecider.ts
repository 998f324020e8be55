// The runtime binding decider: which runtime session a conversation is bound to (sticky), and when it must change (/new, /detach, drift).
import { ValidationError } from '../../../errors/ledgerError.js';
import { type Decider, unknownEventType } from '../../../events/decider.js';
import type { BindReason, DetachReason, RuntimeBindingEvent } from '../../../events/runtime/runtimeBindingEvents.js';

/** What a binding state holds, bound or not. */
interface RuntimeBindingFields {
  /** The runtime session bound before the current one (or before the detach). */
  previousRuntimeSessionId: string | null;
  /** The latest drift note, kept after later rebinds so the conversation can still show it. */
  lastNote: { note: string; runtimeSessionId: string; at: string } | null;
  bindCount: number;
}

export interface UnboundRuntimeBinding extends RuntimeBindingFields {
  runtimeSessionId: null;
  provider: null;
  model: null;
  reason: null;
  boundAt: null;
}

export interface BoundRuntimeBinding extends RuntimeBindingFields {
  runtimeSessionId: string;
  provider: string;
  model: string;
  reason: BindReason;
  boundAt: string;
}

/** Bound or not, told apart by `runtimeSessionId` (isBound): a bound one has its provider, model and reason. */
export type RuntimeBindingState = UnboundRuntimeBinding | BoundRuntimeBinding;

export const initialRuntimeBindingState = (): RuntimeBindingState => ({
  runtimeSessionId: null,
  provider: null,
  model: null,
  reason: null,
  boundAt: null,
  previousRuntimeSessionId: null,
  lastNote: null,
  bindCount: 0,
});

export type RuntimeBindingCommand =
  /** A turn arrives: keep the bound runtime session unless there is none, a new one is asked for, or the parameters drifted. */
  | { type: 'BindForTurn'; provider: string; model: string; newSession: boolean; runtimeSessionId: string; now: string }
  /** `/new <task>`, `/new codex <task>`: replace the binding with a new runtime session at once. */
  | { type: 'BindForTask'; provider: string | null; model: string | null; runtimeSessionId: string; now: string }
  /** `/new` (no task) and `/detach`: unbind only. */
  | { type: 'Unbind'; reason: DetachReason; now: string };

export const isBound = (state: RuntimeBindingState): state is BoundRuntimeBinding => state.runtimeSessionId !== null;

/** A provider with no model named runs its own default. */
export const DEFAULT_MODEL = 'default';

export function driftNote(from: { provider: string; model: string }, to: { provider: string; model: string }): string | null {
  const changes: string[] = [];
  if (from.provider !== to.provider) changes.push(`provider changed from ${from.provider} to ${to.provider}`);
  if (from.model !== to.model) changes.push(`model changed from ${from.model} to ${to.model}`);
  return changes.length === 0 ? null : `${changes.join('; ')}: started a new runtime session`;
}

export function evolveRuntimeBinding(state: RuntimeBindingState, event: RuntimeBindingEvent): RuntimeBindingState {
  switch (event.type) {
    case 'RuntimeBound': {
      const { runtimeSessionId, provider, model, reason, previousRuntimeSessionId, note, at } = event.data;
      return {
        runtimeSessionId,
        provider,
        model,
        reason,
        boundAt: at,
        previousRuntimeSessionId,
        lastNote: note === null ? state.lastNote : { note, runtimeSessionId, at },
        bindCount: state.bindCount + 1,
      };
    }
    case 'RuntimeDetached':
      return {
        ...state,
        runtimeSessionId: null,
        provider: null,
        model: null,
        reason: null,
        boundAt: null,
        previousRuntimeSessionId: event.data.runtimeSessionId,
      };
    default:
      return unknownEventType(event, state);
  }
}

function bound(
  state: RuntimeBindingState,
  data: { runtimeSessionId: string; provider: string; model: string; reason: BindReason; note: string | null; at: string },
): RuntimeBindingEvent {
  return { type: 'RuntimeBound', data: { ...data, previousRuntimeSessionId: state.runtimeSessionId ?? state.previousRuntimeSessionId } };
}

export function decideRuntimeBinding(command: RuntimeBindingCommand, state: RuntimeBindingState): RuntimeBindingEvent[] {
  switch (command.type) {
    case 'BindForTurn': {
      const { provider, model, runtimeSessionId, now } = command;
      if (!isBound(state)) return [bound(state, { runtimeSessionId, provider, model, reason: 'new', note: null, at: now })];
      if (command.newSession) return [bound(state, { runtimeSessionId, provider, model, reason: 'new_command', note: null, at: now })];
      const note = driftNote({ provider: state.provider, model: state.model }, { provider, model });
      if (note !== null) return [bound(state, { runtimeSessionId, provider, model, reason: 'drift', note, at: now })];
      return [];
    }
    case 'BindForTask': {
      const provider = command.provider ?? state.provider;
      if (provider === null)
        throw new ValidationError('nothing is bound to take the provider from: name one (codex, claude, …)', undefined, 'PROVIDER_REQUIRED');
      // Same provider keeps its model; another provider starts on its default unless one is named.
      const model = command.model ?? (provider === state.provider && state.model !== null ? state.model : DEFAULT_MODEL);
      return [bound(state, { runtimeSessionId: command.runtimeSessionId, provider, model, reason: 'task', note: null, at: command.now })];
    }
    case 'Unbind':
      if (!isBound(state)) return [];
      return [{ type: 'RuntimeDetached', data: { runtimeSessionId: state.runtimeSessionId, reason: command.reason, at: command.now } }];
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const runtimeBindingDecider: Decider<RuntimeBindingState, RuntimeBindingCommand, RuntimeBindingEvent> = {
  initialState: initialRuntimeBindingState,
  evolve: evolveRuntimeBinding,
  decide: decideRuntimeBinding,
};
