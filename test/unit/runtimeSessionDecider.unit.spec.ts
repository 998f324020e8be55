// The runtime session decider as a specification: every transition of CliGate's runtime state machine, and the ones it forbids.
import { describe, expect, it } from 'vitest';
import type { RuntimeSessionEvent } from '../../src/events/runtime/runtimeSessionEvents.js';
import { type RuntimeSessionCommand, runtimeSessionDecider } from '../../src/modules/runtime/domain/runtimeSessionDecider.js';
import { specification } from '../support/deciderSpecification.js';

const runtime = specification(runtimeSessionDecider);
const at = (seconds: number) => new Date(Date.parse('2026-03-01T09:00:00.000Z') + seconds * 1000).toISOString();

const started: RuntimeSessionEvent = {
  type: 'RuntimeSessionStarted',
  data: { runtimeSessionId: 'rt_0123456789abcdef', provider: 'codex', model: 'gpt-5', sessionKey: 'agent:main:web:dm:1', at: at(0) },
};
const turn = (n: number, seconds = 0): RuntimeSessionEvent => ({ type: 'TurnStarted', data: { turnId: `turn_${n}`, input: `task ${n}`, at: at(seconds) } });
const running = (n: number, seconds = 1): RuntimeSessionEvent => ({ type: 'RuntimeRunning', data: { turnId: `turn_${n}`, at: at(seconds) } });
const asked = (questionId: string, n = 1, seconds = 2): RuntimeSessionEvent => ({
  type: 'QuestionAsked',
  data: { turnId: `turn_${n}`, questionId, details: { text: 'which branch?' }, at: at(seconds) },
});
const requested = (approvalId: string, n = 1, seconds = 2): RuntimeSessionEvent => ({
  type: 'ApprovalRequested',
  data: { turnId: `turn_${n}`, approvalId, details: { command: 'rm -rf build' }, at: at(seconds) },
});
const completed = (n: number, seconds = 5): RuntimeSessionEvent => ({ type: 'TurnCompleted', data: { turnId: `turn_${n}`, output: {}, at: at(seconds) } });
const interrupted = (n: number, seconds = 100): RuntimeSessionEvent => ({
  type: 'RuntimeInterrupted',
  data: { turnId: `turn_${n}`, reason: 'service_restart', error: 'restarted', previousState: 'waiting_approval', at: at(seconds) },
});
const report = (
  workerReport: Extract<RuntimeSessionCommand, { type: 'ReportWorkerEvent' }>['report'],
  seconds = 3,
  turnId: string | null = null,
): RuntimeSessionCommand => ({
  type: 'ReportWorkerEvent',
  report: workerReport,
  turnId,
  now: at(seconds),
});
const startTurn = (seconds = 10): RuntimeSessionCommand => ({
  type: 'StartTurn',
  runtimeSessionId: 'rt_0123456789abcdef',
  sessionKey: 'agent:main:web:dm:1',
  provider: 'codex',
  model: 'gpt-5',
  input: 'again',
  now: at(seconds),
});

describe('runtime session: starting turns', () => {
  it('unbound → running: the first turn creates the session and starts turn_1', () => {
    runtime
      .given([])
      .when(startTurn(0))
      .then([
        { ...started, data: { ...started.data } },
        { type: 'TurnStarted', data: { turnId: 'turn_1', input: 'again', at: at(0) } },
      ]);
    runtime.given([]).when(startTurn(0)).thenState({ status: 'starting', currentTurnId: 'turn_1', turnCount: 1 });
  });

  it('idle → running: a follow-up reuses the session with the next turn id', () => {
    runtime
      .given([started, turn(1), running(1), completed(1)])
      .when(startTurn())
      .then([{ type: 'TurnStarted', data: { turnId: 'turn_2', input: 'again', at: at(10) } }]);
  });

  it('refuses a second turn while one is starting, running or waiting (RUNTIME_BUSY)', () => {
    runtime
      .given([started, turn(1)])
      .when(startTurn())
      .thenThrows({ code: 'RUNTIME_BUSY', status: 409 });
    runtime
      .given([started, turn(1), running(1)])
      .when(startTurn())
      .thenThrows({ code: 'RUNTIME_BUSY' });
    runtime
      .given([started, turn(1), running(1), asked('q1')])
      .when(startTurn())
      .thenThrows({ code: 'RUNTIME_BUSY' });
    runtime
      .given([started, turn(1), running(1), requested('a1')])
      .when(startTurn())
      .thenThrows({ code: 'RUNTIME_BUSY' });
  });

  it('an interrupted session takes a follow-up turn (the user may follow up after recovery)', () => {
    runtime
      .given([started, turn(1), running(1), interrupted(1)])
      .when(startTurn(200))
      .thenState({ status: 'starting', currentTurnId: 'turn_2', turnCount: 2 });
  });
});

describe('runtime session: worker reports', () => {
  it('starting → running on started; a repeated started changes nothing', () => {
    runtime
      .given([started, turn(1)])
      .when(report({ type: 'started' }))
      .then([{ type: 'RuntimeRunning', data: { turnId: 'turn_1', at: at(3) } }]);
    runtime
      .given([started, turn(1), running(1)])
      .when(report({ type: 'started' }))
      .then([]);
  });

  it('progress keeps running and counts as a heartbeat; progress before started means running', () => {
    runtime
      .given([started, turn(1)])
      .when(report({ type: 'progress', message: 'reading files', details: {} }, 7))
      .thenState({ status: 'running', lastWorkerEventAt: at(7) });
  });

  it('running → waiting_user on a question; answering it → running', () => {
    runtime
      .given([started, turn(1), running(1)])
      .when(report({ type: 'question', questionId: 'q1', details: { text: 'which branch?' } }))
      .thenState({ status: 'waiting_user', pendingQuestions: [{ questionId: 'q1', turnId: 'turn_1' }] });
    runtime
      .given([started, turn(1), running(1), asked('q1')])
      .when({ type: 'AnswerQuestion', questionId: 'q1', answer: 'main', now: at(4) })
      .then([{ type: 'QuestionAnswered', data: { questionId: 'q1', answer: 'main', by: 'user', at: at(4) } }]);
    runtime
      .given([started, turn(1), running(1), asked('q1')])
      .when({ type: 'AnswerQuestion', questionId: 'q1', answer: 'main', now: at(4) })
      .thenState({ status: 'running', pendingQuestions: [], answeredQuestions: [{ questionId: 'q1', answer: 'main', by: 'user' }] });
  });

  it('running → waiting_approval on a request; the user resolving it → running, remembered as asked', () => {
    runtime
      .given([started, turn(1), running(1)])
      .when(report({ type: 'approval_request', approvalId: 'a1', details: { command: 'rm' } }))
      .thenState({ status: 'waiting_approval' });
    runtime
      .given([started, turn(1), running(1), requested('a1')])
      .when({ type: 'ResolveApproval', approvalId: 'a1', decision: 'allow', remember: 'session', now: at(4) })
      .then([{ type: 'ApprovalResolved', data: { approvalId: 'a1', decision: 'allow', remember: 'session', by: 'user', at: at(4) } }]);
    runtime
      .given([started, turn(1), running(1), requested('a1')])
      .when({ type: 'ResolveApproval', approvalId: 'a1', decision: 'deny', remember: 'none', now: at(4) })
      .thenState({ status: 'running', pendingApprovals: [] });
  });

  it('the worker may report an approval resolved elsewhere (approval_resolved)', () => {
    runtime
      .given([started, turn(1), running(1), requested('a1')])
      .when(report({ type: 'approval_resolved', approvalId: 'a1', decision: 'deny', remember: 'none' }))
      .then([{ type: 'ApprovalResolved', data: { approvalId: 'a1', decision: 'deny', remember: 'none', by: 'worker', at: at(3) } }]);
  });

  it('with an approval and a question pending, waiting_approval wins until the approval is answered', () => {
    runtime
      .given([started, turn(1), running(1), asked('q1'), requested('a1')])
      .when({ type: 'ResolveApproval', approvalId: 'a1', decision: 'allow', remember: 'none', now: at(4) })
      .thenState({ status: 'waiting_user' });
  });

  it('running → idle on completed, and on failed (with an error record); both clear the waits only', () => {
    runtime
      .given([started, turn(1), running(1), requested('a1'), asked('q1')])
      .when(report({ type: 'completed', output: { summary: 'done' } }))
      .thenState({
        status: 'idle',
        currentTurnId: null,
        pendingApprovals: [],
        pendingQuestions: [],
        recentTurns: [{ turnId: 'turn_1', status: 'completed' }],
        runtimeSessionId: 'rt_0123456789abcdef',
      });
    runtime
      .given([started, turn(1), running(1)])
      .when(report({ type: 'failed', error: 'tool crashed' }))
      .thenState({
        status: 'idle',
        recentTurns: [{ turnId: 'turn_1', status: 'failed', error: 'tool crashed' }],
        lastError: { kind: 'turn_failed', reason: 'worker_reported', message: 'tool crashed', turnId: 'turn_1' },
      });
  });

  it('progress while waiting is a heartbeat that keeps the wait', () => {
    runtime
      .given([started, turn(1), running(1), requested('a1')])
      .when(report({ type: 'progress', message: null, details: {} }, 9))
      .thenState({ status: 'waiting_approval', lastWorkerEventAt: at(9) });
  });

  it('an answer from the API is not a worker heartbeat', () => {
    runtime
      .given([started, turn(1), running(1), asked('q1')])
      .when({ type: 'AnswerQuestion', questionId: 'q1', answer: 'main', now: at(50) })
      .thenState({ lastWorkerEventAt: at(2) });
  });

  it('a retried question or approval request with the same id is not recorded twice', () => {
    runtime
      .given([started, turn(1), running(1), asked('q1')])
      .when(report({ type: 'question', questionId: 'q1', details: {} }))
      .then([]);
    runtime
      .given([started, turn(1), running(1), requested('a1')])
      .when(report({ type: 'approval_request', approvalId: 'a1', details: {} }))
      .then([]);
  });
});

describe('runtime session: forbidden transitions', () => {
  it('no worker report without a turn in flight (idle)', () => {
    for (const forbidden of [
      { type: 'started' },
      { type: 'progress', message: null, details: {} },
      { type: 'completed', output: {} },
      { type: 'failed', error: 'x' },
      { type: 'question', questionId: 'q', details: {} },
    ] as const) {
      runtime
        .given([started, turn(1), running(1), completed(1)])
        .when(report(forbidden))
        .thenThrows({ code: 'NO_TURN_IN_FLIGHT', status: 409 });
    }
  });

  it('no worker report on an interrupted turn: the conversation starts a new turn instead', () => {
    runtime
      .given([started, turn(1), running(1), interrupted(1)])
      .when(report({ type: 'completed', output: {} }))
      .thenThrows({ code: 'RUNTIME_INTERRUPTED', status: 409 });
  });

  it('a report for another turn than the one in flight is refused', () => {
    runtime
      .given([started, turn(1), running(1)])
      .when(report({ type: 'completed', output: {} }, 3, 'turn_7'))
      .thenThrows({ code: 'TURN_MISMATCH', status: 409 });
  });

  it('answers to unknown waits are 404; a different second answer is 409; the same answer again is a no-op', () => {
    runtime
      .given([started, turn(1), running(1)])
      .when({ type: 'ResolveApproval', approvalId: 'nope', decision: 'allow', remember: 'none', now: at(4) })
      .thenThrows({ code: 'APPROVAL_NOT_FOUND', status: 404 });
    runtime
      .given([started, turn(1), running(1)])
      .when({ type: 'AnswerQuestion', questionId: 'nope', answer: 'x', now: at(4) })
      .thenThrows({ code: 'QUESTION_NOT_FOUND', status: 404 });
    const resolved: RuntimeSessionEvent = { type: 'ApprovalResolved', data: { approvalId: 'a1', decision: 'allow', remember: 'none', by: 'user', at: at(4) } };
    runtime
      .given([started, turn(1), running(1), requested('a1'), resolved])
      .when({ type: 'ResolveApproval', approvalId: 'a1', decision: 'allow', remember: 'none', now: at(5) })
      .then([]);
    runtime
      .given([started, turn(1), running(1), requested('a1'), resolved])
      .when({ type: 'ResolveApproval', approvalId: 'a1', decision: 'deny', remember: 'none', now: at(5) })
      .thenThrows({ code: 'APPROVAL_ALREADY_RESOLVED', status: 409 });
  });

  it('an unknown runtime session is 404 for everything but a start', () => {
    runtime
      .given([])
      .when(report({ type: 'started' }))
      .thenThrows({ code: 'RUNTIME_SESSION_NOT_FOUND', status: 404 });
    runtime
      .given([])
      .when({ type: 'ResolveApproval', approvalId: 'a1', decision: 'allow', remember: 'none', now: at(1) })
      .thenThrows({ code: 'RUNTIME_SESSION_NOT_FOUND' });
  });
});

describe('runtime session: interruption and recovery', () => {
  const quietTurn = [started, turn(1), running(1, 10), requested('a1', 1, 20)];

  it('interrupts a turn in flight whose worker has been quiet since the cutoff, keeping its waits', () => {
    runtime
      .given(quietTurn)
      .when({ type: 'Interrupt', reason: 'heartbeat_timeout', error: 'quiet', quietSince: at(30), now: at(400) })
      .then([
        { type: 'RuntimeInterrupted', data: { turnId: 'turn_1', reason: 'heartbeat_timeout', error: 'quiet', previousState: 'waiting_approval', at: at(400) } },
      ]);
    runtime
      .given(quietTurn)
      .when({ type: 'Interrupt', reason: 'heartbeat_timeout', error: 'quiet', quietSince: at(30), now: at(400) })
      .thenState({
        status: 'interrupted',
        currentTurnId: null,
        pendingApprovals: [{ approvalId: 'a1' }],
        recentTurns: [{ turnId: 'turn_1', status: 'interrupted' }],
        lastError: { kind: 'interrupted', reason: 'heartbeat_timeout', message: 'quiet', turnId: 'turn_1' },
      });
  });

  it('leaves a turn alone whose worker reported at or after the cutoff, and sessions with nothing in flight', () => {
    runtime
      .given(quietTurn)
      .when({ type: 'Interrupt', reason: 'heartbeat_timeout', error: 'quiet', quietSince: at(20), now: at(400) })
      .then([]);
    runtime
      .given([started, turn(1), running(1), completed(1)])
      .when({ type: 'Interrupt', reason: 'service_restart', error: 'restart', quietSince: at(400), now: at(400) })
      .then([]);
  });

  it('a forced reset (quietSince null) interrupts the turn in flight however recently the worker reported', () => {
    runtime
      .given(quietTurn)
      .when({ type: 'Interrupt', reason: 'conversation_reset', error: 'reset', quietSince: null, now: at(21) })
      .then([
        { type: 'RuntimeInterrupted', data: { turnId: 'turn_1', reason: 'conversation_reset', error: 'reset', previousState: 'waiting_approval', at: at(21) } },
      ]);
    runtime
      .given([started, turn(1), running(1), completed(1)])
      .when({ type: 'Interrupt', reason: 'conversation_reset', error: 'reset', quietSince: null, now: at(400) })
      .then([]);
  });

  it('a starting turn left by the previous process is interrupted on restart', () => {
    runtime
      .given([started, turn(1)])
      .when({ type: 'Interrupt', reason: 'service_restart', error: 'restart', quietSince: at(60), now: at(60) })
      .thenState({ status: 'interrupted', lastError: { reason: 'service_restart' } });
  });

  it('an approval of an interrupted session stays answerable: recorded, the session stays interrupted', () => {
    runtime
      .given([...quietTurn, interrupted(1)])
      .when({ type: 'ResolveApproval', approvalId: 'a1', decision: 'allow', remember: 'conversation', now: at(500) })
      .thenState({
        status: 'interrupted',
        pendingApprovals: [],
        resolvedApprovals: [{ approvalId: 'a1', decision: 'allow', remember: 'conversation', by: 'user' }],
      });
  });

  it("a follow-up turn after interruption does not count the old turn's waits as its own", () => {
    runtime
      .given([...quietTurn, interrupted(1), turn(2, 200), running(2, 201)])
      .when(report({ type: 'progress', message: null, details: {} }, 202))
      .thenState({ status: 'running', pendingApprovals: [{ approvalId: 'a1', turnId: 'turn_1' }] });
  });
});

describe('runtime session: an interrupt asked of the running turn', () => {
  const runningTurn = [started, turn(1), running(1, 10)];
  const asking = (messageId: string, seconds = 30): RuntimeSessionCommand => ({ type: 'RequestInterrupt', messageId, now: at(seconds) });
  const asked1: RuntimeSessionEvent = { type: 'InterruptRequested', data: { turnId: 'turn_1', messageId: 'm1', at: at(30) } };

  it('records InterruptRequested on the turn in flight; the turn stays in flight and the heartbeat keeps counting from the worker', () => {
    runtime.given(runningTurn).when(asking('m1')).then([asked1]);
    runtime
      .given(runningTurn)
      .when(asking('m1'))
      .thenState({
        status: 'running',
        currentTurnId: 'turn_1',
        lastWorkerEventAt: at(10),
        interruptRequested: { turnId: 'turn_1', messageId: 'm1', requestedAt: at(30) },
      });
  });

  it('asks once per turn: a second interrupting message, or a retry, writes nothing', () => {
    runtime
      .given([...runningTurn, asked1])
      .when(asking('m2', 40))
      .then([]);
  });

  it('asks nothing when no turn runs', () => {
    runtime.given([started]).when(asking('m1')).then([]);
    runtime
      .given([started, turn(1), completed(1)])
      .when(asking('m1'))
      .then([]);
  });

  it('never stops a later turn: a message that arrived during turn 1 writes nothing once turn 2 runs (it may be the answer to it)', () => {
    const turn2Running = [started, turn(1), completed(1), turn(2, 20)];
    runtime
      .given(turn2Running)
      .when({ type: 'RequestInterrupt', messageId: 'm1', turnId: 'turn_1', now: at(30) })
      .then([]);
    runtime
      .given(turn2Running)
      .when({ type: 'RequestInterrupt', messageId: 'm1', turnId: 'turn_2', now: at(30) })
      .then([{ type: 'InterruptRequested', data: { turnId: 'turn_2', messageId: 'm1', at: at(30) } }]);
  });

  it('the next turn waits for the worker: refused while the interrupted turn runs, started once it reports', () => {
    runtime
      .given([...runningTurn, asked1])
      .when(startTurn(50))
      .thenThrows({ code: 'RUNTIME_BUSY' });
    runtime
      .given([...runningTurn, asked1, { type: 'TurnFailed', data: { turnId: 'turn_1', error: 'interrupted by the user', at: at(45) } }])
      .when(startTurn(50))
      .thenState({ currentTurnId: 'turn_2', interruptRequested: null });
  });

  it('the heartbeat timeout ends a turn whose worker never answers the interrupt, and clears the request', () => {
    runtime
      .given([...runningTurn, asked1])
      .when({ type: 'Interrupt', reason: 'heartbeat_timeout', error: 'quiet', quietSince: at(20), now: at(400) })
      .thenState({ status: 'interrupted', currentTurnId: null, interruptRequested: null });
  });
});

describe('an event type from a newer version of the service (a rolling upgrade)', () => {
  it('leaves the folded state as it is', () => {
    const folded = [started, turn(1)].reduce(runtimeSessionDecider.evolve, runtimeSessionDecider.initialState());
    expect(runtimeSessionDecider.evolve(folded, { type: 'FromANewerVersion', data: { at: '2026-07-01T00:00:00.000Z' } } as never)).toEqual(folded);
  });
});
