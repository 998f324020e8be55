// Loads a stream's folded state (cache, then catch-up from the store) and appends decided events at the expected revision.
import type { Clock } from '../clock.js';
import type { Decider } from './decider.js';
import type { AppendResult, EventMetadata, EventStore, JsonObject } from './eventStore.js';
import { StreamNotFoundError, WrongExpectedRevisionError } from './eventStoreErrors.js';
import { FoldedStateCache } from './foldedStateCache.js';

/** warm: served from this process's cache; resumed: rehydrated from the store; empty: no such stream yet. */
export type LoadSource = 'warm' | 'resumed' | 'empty';

export interface LoadedState<State> {
  state: State;
  revision: number;
  /** Global position of the stream's last event; 0 for an empty stream. */
  position: number;
  source: LoadSource;
}

export interface CommandResult<State, Event> {
  state: State;
  revision: number;
  events: Event[];
  /** Global position of the last event written, or of the stream's last event when the decision wrote nothing. */
  position: number;
  /** Whether the decision appended anything. */
  written: boolean;
  source: LoadSource;
}

const MAX_CONFLICT_RETRIES = 20;

export class StreamStateStore {
  constructor(
    private readonly store: EventStore,
    private readonly cache: FoldedStateCache,
    private readonly clock: Clock,
  ) {}

  async load<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
  ): Promise<LoadedState<State>> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get<State>(streamName, now);
    // Another instance may have appended since we cached: catch up from the cached revision.
    const fromRevision = cached ? cached.revision + 1 : 0;
    let events;
    try {
      events = await this.store.readStream(streamName, { fromRevision });
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { state: decider.initialState(), revision: -1, position: 0, source: 'empty' };
      throw error;
    }
    let state = cached?.state ?? decider.initialState();
    let revision = cached?.revision ?? -1;
    let position = cached?.position ?? 0;
    for (const event of events) {
      state = decider.evolve(state, { type: event.type, data: event.data } as unknown as Event);
      revision = event.revision;
      position = event.position;
    }
    if (revision < 0) return { state, revision, position, source: 'empty' };
    this.cache.set(streamName, state, revision, position, now);
    return { state, revision, position, source: cached ? 'warm' : 'resumed' };
  }

  /**
   * Loads, decides and appends with the loaded revision as the expected one. A conflict means someone
   * else wrote first: reload and decide again, so the decision always rests on the latest state.
   */
  async handle<State, Command, Event extends { type: string; data: object }>(
    streamName: string,
    decider: Decider<State, Command, Event>,
    command: Command | ((state: State) => Command | Promise<Command>),
    metadata: EventMetadata,
  ): Promise<CommandResult<State, Event>> {
    for (let attempt = 0; ; attempt++) {
      const loaded = await this.load(streamName, decider);
      const resolved = typeof command === 'function' ? await (command as (state: State) => Command | Promise<Command>)(loaded.state) : command;
      const decided = decider.decide(resolved, loaded.state);
      if (decided.length === 0) return { ...loaded, events: [], written: false };
      let appended: AppendResult;
      try {
        appended = await this.store.append(
          streamName,
          decided.map((event) => ({ type: event.type, data: event.data as unknown as JsonObject, metadata: { schemaVersion: 1, ...metadata } })),
          loaded.revision < 0 ? 'no_stream' : loaded.revision,
        );
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError && attempt < MAX_CONFLICT_RETRIES) {
          this.cache.delete(streamName);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
          continue;
        }
        throw error;
      }
      const state = decided.reduce(decider.evolve, loaded.state);
      this.cache.set(streamName, state, appended.nextExpectedRevision, appended.position, this.clock.now().getTime());
      return { state, revision: appended.nextExpectedRevision, events: decided, position: appended.position, written: true, source: loaded.source };
    }
  }
}
