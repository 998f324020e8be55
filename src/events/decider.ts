// A decider in the Emmett sense: pure decide/evolve over a stream's events.
export interface Decider<State, Command, Event extends { type: string; data: object }> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}
