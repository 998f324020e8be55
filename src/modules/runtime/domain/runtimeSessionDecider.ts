// The runtime session decider: turns, the worker's reports, approvals and questions, interrupts. One file per command
// under decide/; this one dispatches.
import type { Decider } from '../../../events/decider.js';
import type { RuntimeSessionEvent } from '../../../events/runtime/runtimeSessionEvents.js';
import { type AnswerQuestion, decideAnswerQuestion } from './decide/answerQuestion.js';
import { decideInterrupt, type Interrupt } from './decide/interrupt.js';
import { decideReportWorkerEvent, type ReportWorkerEvent } from './decide/reportWorkerEvent.js';
import { decideRequestInterrupt, type RequestInterrupt } from './decide/requestInterrupt.js';
import { decideResolveApproval, type ResolveApproval } from './decide/resolveApproval.js';
import { decideStartTurn, type StartTurn } from './decide/startTurn.js';
import { evolveRuntimeSession } from './evolveRuntimeSession.js';
import { initialRuntimeSessionState, runtimeSessionNotFound, type RuntimeSessionState } from './runtimeSessionState.js';

export { evolveRuntimeSession } from './evolveRuntimeSession.js';
export * from './runtimeSessionState.js';

export type RuntimeSessionCommand = StartTurn | ReportWorkerEvent | ResolveApproval | AnswerQuestion | Interrupt | RequestInterrupt;

export function decideRuntimeSession(command: RuntimeSessionCommand, state: RuntimeSessionState): RuntimeSessionEvent[] {
  if (command.type === 'StartTurn') return decideStartTurn(command, state);
  if (state.status === 'absent') throw runtimeSessionNotFound();
  switch (command.type) {
    case 'ReportWorkerEvent':
      return decideReportWorkerEvent(command, state);
    case 'ResolveApproval':
      return decideResolveApproval(command, state);
    case 'AnswerQuestion':
      return decideAnswerQuestion(command, state);
    case 'Interrupt':
      return decideInterrupt(command, state);
    case 'RequestInterrupt':
      return decideRequestInterrupt(command, state);
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const runtimeSessionDecider: Decider<RuntimeSessionState, RuntimeSessionCommand, RuntimeSessionEvent> = {
  initialState: initialRuntimeSessionState,
  evolve: evolveRuntimeSession,
  decide: decideRuntimeSession,
};
