// The runtime sessions read model folds each runtime event onto its own row (evolveRuntimeSessionRow), not onto the
// runtime session decider's state. Over random valid histories (random commands, each decided on the state so far),
// the row must say what the write side's fold says on every column, and hold the turn and waits that state holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/errors/ledgerError.js';
import type { RuntimeSessionEvent } from '../../src/events/runtime/runtimeSessionEvents.js';
import {
  decideRuntimeSession,
  evolveRuntimeSession,
  initialRuntimeSessionState,
  type RuntimeSessionCommand,
  type RuntimeSessionState,
  type WorkerReport,
} from '../../src/modules/runtime/domain/runtimeSessionDecider.js';
import { evolveRuntimeSessionRow, type RuntimeSessionRecord } from '../../src/projections/runtimeSessions/evolveRuntimeSessionRow.js';
import { runtimeSessionEventTypes } from '../../src/projections/runtimeSessions/runtimeSessionsProjection.js';

const START = Date.parse('2026-03-02T10:00:00.000Z');

/** The row the write side's state stands for; null where it keeps no runtime session. */
function recordOf(state: RuntimeSessionState): RuntimeSessionRecord | null {
  if (state.status === 'absent') return null;
  return {
    runtimeSessionId: state.runtimeSessionId,
    sessionKey: state.sessionKey,
    provider: state.provider,
    model: state.model,
    state: state.status,
    lastWorkerEventAt: state.lastWorkerEventAt === null ? null : new Date(state.lastWorkerEventAt),
    updatedAt: new Date(state.updatedAt),
    folded: {
      currentTurnId: state.currentTurnId,
      pendingApprovals: state.pendingApprovals.map(({ approvalId, turnId }) => ({ approvalId, turnId })),
      pendingQuestions: state.pendingQuestions.map(({ questionId, turnId }) => ({ questionId, turnId })),
    },
  };
}

/** A command's choices, drawn before the history is known; `commandFor` makes them a command on the state so far. */
const step = fc.record({
  kind: fc.constantFrom('start', 'report', 'report', 'report', 'resolve', 'answer', 'interrupt', 'requestInterrupt'),
  report: fc.constantFrom('started', 'progress', 'question', 'approval_request', 'approval_resolved', 'completed', 'failed'),
  seconds: fc.integer({ min: 0, max: 120 }),
  id: fc.integer({ min: 0, max: 3 }),
  pick: fc.nat(),
  staleTurn: fc.boolean(),
  quiet: fc.option(fc.integer({ min: 0, max: 120 }), { nil: null }),
  decision: fc.constantFrom('allow', 'deny') as fc.Arbitrary<'allow' | 'deny'>,
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** An id the state waits on (so the command acts), or a new one. */
function waitedOn(ids: string[], choice: Step, prefix: string): string {
  return ids.length > 0 && choice.pick % 3 !== 0 ? ids[choice.pick % ids.length]! : `${prefix}${choice.id}`;
}

function reportFor(choice: Step, approvals: string[]): WorkerReport {
  switch (choice.report) {
    case 'started':
      return { type: 'started' };
    case 'progress':
      return { type: 'progress', message: 'working', details: {} };
    case 'question':
      return { type: 'question', questionId: `q${choice.id}`, details: { text: 'which?' } };
    case 'approval_request':
      return { type: 'approval_request', approvalId: `a${choice.id}`, details: { tool: 'rm' } };
    case 'approval_resolved':
      return { type: 'approval_resolved', approvalId: waitedOn(approvals, choice, 'a'), decision: choice.decision, remember: 'none' };
    case 'completed':
      return { type: 'completed', output: {} };
    default:
      return { type: 'failed', error: 'crashed' };
  }
}

function commandFor(choice: Step, state: RuntimeSessionState, now: number): RuntimeSessionCommand {
  const at = new Date(now).toISOString();
  const approvals = state.pendingApprovals.map((approval) => approval.approvalId);
  const questions = state.pendingQuestions.map((question) => question.questionId);
  switch (choice.kind) {
    case 'start':
      return { type: 'StartTurn', runtimeSessionId: 'rt_1', sessionKey: 'agent:main:cli:dm:me', provider: 'claude', model: 'opus', input: 'go', now: at };
    case 'report': {
      const turnId = choice.staleTurn ? 'turn_0' : state.currentTurnId;
      const report = reportFor(choice, approvals);
      return { type: 'ReportWorkerEvent', report, turnId, now: at };
    }
    case 'resolve':
      return { type: 'ResolveApproval', approvalId: waitedOn(approvals, choice, 'a'), decision: choice.decision, remember: 'session', now: at };
    case 'answer':
      return { type: 'AnswerQuestion', questionId: waitedOn(questions, choice, 'q'), answer: 'this one', now: at };
    case 'interrupt': {
      const quietSince = choice.quiet === null ? null : new Date(now - choice.quiet * 1000).toISOString();
      return { type: 'Interrupt', reason: 'heartbeat_timeout', error: 'no worker event', quietSince, now: at };
    }
    default:
      return { type: 'RequestInterrupt', messageId: `m${choice.id}`, ...(choice.staleTurn ? { turnId: 'turn_0' } : {}), now: at };
  }
}

describe('runtime session row fold', () => {
  it('folding each event onto the row gives the row the write side would give', () => {
    let compared = 0;
    const folded = new Set<string>();
    fc.assert(
      // Half the histories begin with a turn, as a runtime stream does; in the others both folds keep nothing until one starts.
      fc.property(fc.boolean(), fc.array(step, { minLength: 1, maxLength: 50 }), (startedFirst, steps) => {
        const choices = startedFirst ? [{ ...steps[0]!, kind: 'start' as const }, ...steps] : steps;
        let written = initialRuntimeSessionState();
        let record: RuntimeSessionRecord | null = null;
        let clock = START;
        for (const choice of choices) {
          clock += choice.seconds * 1000;
          let events: RuntimeSessionEvent[];
          try {
            events = decideRuntimeSession(commandFor(choice, written, clock), written);
          } catch (refusal) {
            if (!(refusal instanceof LedgerError)) throw refusal;
            continue; // a refused command writes nothing
          }
          for (const event of events) {
            folded.add(event.type);
            written = evolveRuntimeSession(written, event);
            record = evolveRuntimeSessionRow(record, event);
            expect(record).toEqual(recordOf(written));
            if (record !== null) compared++;
          }
        }
      }),
      { numRuns: 500 },
    );
    // The histories reach far enough to mean something: every event type, many rows.
    expect([...folded].sort()).toEqual(Object.keys(runtimeSessionEventTypes).sort());
    expect(compared).toBeGreaterThan(1000);
  });
});
