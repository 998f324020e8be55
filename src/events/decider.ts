// A decider in the Emmett sense: pure decide/evolve over a stream's events.
export interface Decider<State, Command, Event extends { type: string; data: object }> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

/**
 * The default branch of a fold's exhaustive switch: the compiler refuses a known event type left out (`event` is
 * never there), and at run time an event type of a newer version of the service (during a rolling upgrade) leaves
 * the state as it was.
 */
export function unknownEventType<State>(event: never, state: State): State {
  void event;
  return state;
}
