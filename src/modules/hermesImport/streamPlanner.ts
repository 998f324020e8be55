// Plans a stream's events without writing them: each command decided and folded in, as its command handler would.
import type { Decider } from '../../events/decider.js';

export class StreamPlanner<State, Command, Event extends { type: string; data: object }> {
  readonly events: Event[] = [];

  constructor(
    private readonly decider: Decider<State, Command, Event>,
    public state: State = decider.initialState(),
  ) {}

  apply(command: Command): Event[] {
    const decided = this.decider.decide(command, this.state);
    for (const event of decided) this.state = this.decider.evolve(this.state, event);
    this.events.push(...decided);
    return decided;
  }
}
