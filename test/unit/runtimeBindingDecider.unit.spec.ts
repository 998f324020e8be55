// The runtime binding decider as a specification: sticky binding, drift, newSession, /new variants, /detach.
import { describe, expect, it } from 'vitest';
import type { RuntimeBindingEvent } from '../../src/events/runtime/runtimeBindingEvents.js';
import { type RuntimeBindingCommand, runtimeBindingDecider } from '../../src/modules/runtime/domain/runtimeBindingDecider.js';
import { specification } from '../support/deciderSpecification.js';

const binding = specification(runtimeBindingDecider);
const now = '2026-03-01T09:00:00.000Z';
const later = '2026-03-01T10:00:00.000Z';

const boundTo = (runtimeSessionId: string, provider = 'codex', model = 'gpt-5', previous: string | null = null): RuntimeBindingEvent => ({
  type: 'RuntimeBound',
  data: { runtimeSessionId, provider, model, reason: 'new', previousRuntimeSessionId: previous, note: null, at: now },
});
const detached = (runtimeSessionId: string): RuntimeBindingEvent => ({ type: 'RuntimeDetached', data: { runtimeSessionId, reason: 'detach', at: now } });
const turn = (provider: string, model: string, newSession = false): RuntimeBindingCommand => ({
  type: 'BindForTurn',
  provider,
  model,
  newSession,
  runtimeSessionId: 'rt_new',
  now: later,
});

describe('runtime binding: turns', () => {
  it('unbound: binds a new runtime session (reason new)', () => {
    binding
      .given([])
      .when(turn('codex', 'gpt-5'))
      .then([
        {
          type: 'RuntimeBound',
          data: { runtimeSessionId: 'rt_new', provider: 'codex', model: 'gpt-5', reason: 'new', previousRuntimeSessionId: null, note: null, at: later },
        },
      ]);
  });

  it('sticky: the same provider and model reuse the bound session, however many turns completed or failed', () => {
    binding
      .given([boundTo('rt_a')])
      .when(turn('codex', 'gpt-5'))
      .then([]);
  });

  it('newSession replaces the binding (reason new_command), naming the previous session', () => {
    binding
      .given([boundTo('rt_a')])
      .when(turn('codex', 'gpt-5', true))
      .then([
        {
          type: 'RuntimeBound',
          data: {
            runtimeSessionId: 'rt_new',
            provider: 'codex',
            model: 'gpt-5',
            reason: 'new_command',
            previousRuntimeSessionId: 'rt_a',
            note: null,
            at: later,
          },
        },
      ]);
  });

  it('drift: a different provider or model binds a new session with a status note naming the reason', () => {
    binding
      .given([boundTo('rt_a')])
      .when(turn('claude', 'gpt-5'))
      .then([
        {
          type: 'RuntimeBound',
          data: {
            runtimeSessionId: 'rt_new',
            provider: 'claude',
            model: 'gpt-5',
            reason: 'drift',
            previousRuntimeSessionId: 'rt_a',
            note: 'provider changed from codex to claude: started a new runtime session',
            at: later,
          },
        },
      ]);
    binding
      .given([boundTo('rt_a')])
      .when(turn('codex', 'gpt-5-mini'))
      .thenState({
        runtimeSessionId: 'rt_new',
        reason: 'drift',
        lastNote: { note: 'model changed from gpt-5 to gpt-5-mini: started a new runtime session', runtimeSessionId: 'rt_new' },
      });
  });

  it('after a detach, the next turn binds anew and remembers the session before', () => {
    binding
      .given([boundTo('rt_a'), detached('rt_a')])
      .when(turn('codex', 'gpt-5'))
      .thenState({ runtimeSessionId: 'rt_new', reason: 'new', previousRuntimeSessionId: 'rt_a' });
  });
});

describe('runtime binding: /new and /detach', () => {
  it('/new and /detach unbind the bound session; unbound, they change nothing', () => {
    binding
      .given([boundTo('rt_a')])
      .when({ type: 'Unbind', reason: 'new_command', now: later })
      .then([{ type: 'RuntimeDetached', data: { runtimeSessionId: 'rt_a', reason: 'new_command', at: later } }]);
    binding
      .given([boundTo('rt_a')])
      .when({ type: 'Unbind', reason: 'detach', now: later })
      .thenState({ runtimeSessionId: null, provider: null, previousRuntimeSessionId: 'rt_a' });
    binding.given([]).when({ type: 'Unbind', reason: 'detach', now: later }).then([]);
    binding
      .given([boundTo('rt_a'), detached('rt_a')])
      .when({ type: 'Unbind', reason: 'detach', now: later })
      .then([]);
  });

  it('/new <task> binds a new session on the bound provider and model (reason task)', () => {
    binding
      .given([boundTo('rt_a')])
      .when({ type: 'BindForTask', provider: null, model: null, runtimeSessionId: 'rt_new', now: later })
      .then([
        {
          type: 'RuntimeBound',
          data: { runtimeSessionId: 'rt_new', provider: 'codex', model: 'gpt-5', reason: 'task', previousRuntimeSessionId: 'rt_a', note: null, at: later },
        },
      ]);
  });

  it('/new claude <task> switches provider, on its default model unless one is named', () => {
    binding
      .given([boundTo('rt_a')])
      .when({ type: 'BindForTask', provider: 'claude', model: null, runtimeSessionId: 'rt_new', now: later })
      .thenState({ provider: 'claude', model: 'default', reason: 'task' });
    binding
      .given([boundTo('rt_a')])
      .when({ type: 'BindForTask', provider: 'claude', model: 'opus', runtimeSessionId: 'rt_new', now: later })
      .thenState({ provider: 'claude', model: 'opus' });
    binding
      .given([boundTo('rt_a')])
      .when({ type: 'BindForTask', provider: 'codex', model: null, runtimeSessionId: 'rt_new', now: later })
      .thenState({ provider: 'codex', model: 'gpt-5' });
  });

  it('/new <task> with nothing bound and no provider named is refused (PROVIDER_REQUIRED)', () => {
    binding
      .given([])
      .when({ type: 'BindForTask', provider: null, model: null, runtimeSessionId: 'rt_new', now: later })
      .thenThrows({ code: 'PROVIDER_REQUIRED', status: 400 });
  });
});

describe('an event type from a newer version of the service (a rolling upgrade)', () => {
  it('leaves the folded state as it is', () => {
    const folded = [boundTo('rt-1')].reduce(runtimeBindingDecider.evolve, runtimeBindingDecider.initialState());
    expect(runtimeBindingDecider.evolve(folded, { type: 'FromANewerVersion', data: { at: '2026-07-01T00:00:00.000Z' } } as never)).toEqual(folded);
  });
});
