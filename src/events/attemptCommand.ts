// A command as its caller asks for it, in the decider's own vocabulary: complete but for its time, or built at each attempt.
import type { DecisionReads } from './streamStateStore.js';

/** A decider's command less its time, which is stamped at each attempt: a conflict decides again, with a fresh `now`. */
export type Untimed<Command> = Command extends unknown ? Omit<Command, 'now'> : never;

/** What one attempt of a decision knows: its time, the stream's name and the state it decides on, reads of other streams. */
export interface Attempt<State> {
  now: string;
  streamName: string;
  state: State;
  reads: DecisionReads;
}

/**
 * The command a caller asks a handler for: complete but for `now`, or a function building it from the attempt, for a
 * command that first reads the stream's history or another stream (its own named function beside its route).
 */
export type AttemptCommand<State, Command> = Untimed<Command> | ((attempt: Attempt<State>) => Command | Promise<Command>);

/** The command of one attempt: the caller's, stamped with the attempt's time, or built by the caller's function. */
export function commandOfAttempt<State, Command>(command: AttemptCommand<State, Command>, attempt: Attempt<State>): Command | Promise<Command> {
  if (typeof command === 'function') return command(attempt);
  return { ...command, now: attempt.now } as Command;
}
