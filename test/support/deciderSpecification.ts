// Given/when/then for a pure decider: fold the given events, decide the command, check what came out.
import { expect } from 'vitest';
import type { Decider } from '../../src/events/decider.js';

type ErrorClass = abstract new (...args: never[]) => Error;

/** An error class, or the parts of the error that matter (its class, `code`, `status`). */
export type ErrorCheck = ErrorClass | { type?: ErrorClass; code?: string; status?: number };

/** What `toMatchObject` compares: any subset of the fields, at any depth (arrays element by element). */
export type DeepPartial<T> = T extends readonly (infer Item)[] ? DeepPartial<Item>[] : T extends object ? { [Key in keyof T]?: DeepPartial<T[Key]> } : T;

/** Partial state to match, or a check that fails by returning false or by failing an `expect` inside. */
export type StateCheck<State> = DeepPartial<State> | ((state: State) => boolean | void);

export interface DecisionSpecification<State, Event> {
  then(expectedEvents: Event[]): void;
  thenThrows(check: ErrorCheck): void;
  /** Checks the state folded from the given events followed by the decided ones. */
  thenState(check: StateCheck<State>): void;
}

export interface DeciderSpecification<State, Command, Event> {
  given(events?: Event[]): { when(command: Command): DecisionSpecification<State, Event> };
}

export function specification<State, Command, Event extends { type: string; data: object }>(
  decider: Decider<State, Command, Event>,
): DeciderSpecification<State, Command, Event> {
  const fold = (state: State, events: Event[]) => events.reduce(decider.evolve, state);

  return {
    given: (givenEvents = []) => ({
      when: (command) => {
        const decide = () => {
          const state = fold(decider.initialState(), givenEvents);
          return { state, events: decider.decide(command, state) };
        };
        return {
          then: (expectedEvents) => {
            // A function here means the chain was awaited as a thenable instead of asserted.
            if (typeof expectedEvents === 'function') throw new TypeError('then() expects the events, not a callback: do not await a specification');
            expect(decide().events).toEqual(expectedEvents);
          },
          thenThrows: (check) => {
            let thrown: unknown;
            try {
              decide();
            } catch (error) {
              thrown = error;
            }
            expect(thrown, 'the command should have been refused').toBeInstanceOf(Error);
            const { type, ...fields } = typeof check === 'function' ? { type: check } : check;
            if (type) expect(thrown).toBeInstanceOf(type);
            expect(thrown).toMatchObject(fields);
          },
          thenState: (check) => {
            const { state, events } = decide();
            const after = fold(state, events);
            // DeepPartial of a type parameter stays unresolved, so TypeScript cannot narrow it by typeof.
            if (typeof check === 'function') {
              const holds = (check as (state: State) => boolean | void)(after);
              if (holds === false) expect.fail(`state check ${check.toString()} failed for ${JSON.stringify(after)}`);
            } else {
              expect(after).toMatchObject(check as object);
            }
          },
        };
      },
    }),
  };
}
