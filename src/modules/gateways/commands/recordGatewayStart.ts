// A gateway's start: after an unclean stop, mark its recently active conversations (or suspend stuck ones); list what to resume.
import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import { quoteIdentifier } from '../../../database/migrate.js';
import type { LedgerConfig } from '../../../config/config.js';
import { conversationStreamName, resumeReasons } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata, EventStore } from '../../../events/eventStore.js';
import { type AbandonedTurnRef, gatewayStreamName, type ResumeCandidate, type StartOutcome } from '../../../events/gateway/gatewayEvents.js';
import { UnavailableError } from '../../../errors/ledgerError.js';
import { CONFIG } from '../../../config/config.js';
import { EVENT_STORE } from '../../../events/eventStore.js';
import { PROJECTIONS } from '../../../projections/projectionRunner.js';
import { READ_MODELS } from '../../../projections/readModelDatabase.js';
import type { ProjectionRunner } from '../../../projections/projectionRunner.js';
import { ChangeConversationCommand } from '../../conversations/commands/changeConversation.js';
import { ChangeSessionCommand } from '../../sessions/commands/changeSession.js';
import { gatewayTurnsInFlight } from '../../sessions/queries/turnsInFlightQueries.js';
import { conversationDecider, waitingContinuation } from '../../conversations/domain/conversationDecider.js';
import { runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { runtimeBindingDecider } from '../../runtime/domain/runtimeBindingDecider.js';
import { runtimeSessionDecider } from '../../runtime/domain/runtimeSessionDecider.js';
import { CommandContext } from '../../commandContext.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { findLastItem } from '../../sessions/domain/chunkedList.js';
import { sessionDecider } from '../../sessions/domain/sessionDecider.js';
import { gatewayDecider } from '../domain/gatewayDecider.js';

export class RecordGatewayStartedCommand extends Command<GatewayStartResult> {
  constructor(
    readonly gatewayId: string,
    readonly bootId: string | undefined,
    /** Queue a continuation for each conversation to resume; undefined: AUTO_CONTINUE decides. */
    readonly autoContinue: boolean | undefined,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface GatewayStartResult extends Required<StartOutcome> {
  gatewayId: string;
  bootId: string;
  /** True when this boot was already recorded and the stored answer is repeated. */
  replayed: boolean;
  position: number;
}

@CommandHandler(RecordGatewayStartedCommand)
export class RecordGatewayStartedHandler implements ICommandHandler<RecordGatewayStartedCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  async execute({ gatewayId, bootId = randomUUID(), autoContinue, metadata }: RecordGatewayStartedCommand): Promise<GatewayStartResult> {
    const stream = gatewayStreamName(gatewayId, metadata.tenant);
    const gateway = await this.commandContext.streams.load(stream, gatewayDecider);
    if (gateway.state.lastBootId === bootId && gateway.state.lastStart) {
      return { gatewayId, bootId, abandonedTurns: [], continued: [], ...gateway.state.lastStart, replayed: true, position: gateway.position };
    }
    // The index must have seen every conversation's latest activity before we pick the recent ones.
    const head = await this.eventStore.lastCommittedPosition();
    if (!(await this.projections.waitForPosition(['sessions-index'], head, this.config.readWaitTimeoutMs))) {
      throw new UnavailableError('PROJECTION_NOT_CAUGHT_UP', 'the sessions index is behind the log; retry the start call');
    }
    const cleanShutdown = gateway.state.cleanStopSinceStart;
    const now = this.commandContext.clock.now();
    const recovery = this.commandContext.recoverySettings;
    const marked: string[] = [];
    const suspended: string[] = [];
    let position = 0;
    if (!cleanShutdown) {
      const since = new Date(now.getTime() - recovery.recentActivitySeconds * 1000);
      for (const sessionKey of await this.conversationKeys(gatewayId, metadata.tenant, 'AND updated_at >= $3 AND NOT suspended', [since])) {
        const result = await this.commands.execute(
          new ChangeConversationCommand(sessionKey, { type: 'CountRestartInterruption', bootId, stuckThreshold: recovery.stuckLoopThreshold }, metadata),
        );
        position = Math.max(position, result.position);
        if (result.decided.some((event) => event.type === 'Suspended')) suspended.push(sessionKey);
        else if (result.decided.some((event) => event.type === 'ResumeMarked')) marked.push(sessionKey);
      }
    }
    // Clean stop or not, a turn this gateway started before now will never be recorded by it: unpin those sessions.
    const abandoned = await this.abandonTurnsInFlight(gatewayId, now, metadata);
    position = Math.max(position, abandoned.position);
    const pending = await this.conversationKeys(gatewayId, metadata.tenant, 'AND resume_pending AND NOT suspended', []);
    const resume = await this.resumeCandidates([...new Set([...pending, ...marked])], now, metadata.tenant);
    resume.push(...(await this.toolTails(gatewayId, now, new Set(resume.map((candidate) => candidate.sessionKey)), metadata.tenant)));
    // Before the start is recorded: a start cut short and retried queues nothing twice (one continuation per boot).
    const continued = (autoContinue ?? this.config.recovery.autoContinue) ? await this.queueContinuations(resume, bootId, metadata) : { keys: [], position: 0 };
    position = Math.max(position, continued.position);
    const outcome: StartOutcome = { cleanShutdown, resume, suspended, marked, abandonedTurns: abandoned.turns, continued: continued.keys };
    const recorded = await this.commandContext.streams.handle(
      stream,
      gatewayDecider,
      { type: 'RecordStarted', bootId, outcome, now: now.toISOString() },
      metadata,
    );
    if (!recorded.written && recorded.state.lastStart) {
      return { gatewayId, bootId, abandonedTurns: [], continued: [], ...recorded.state.lastStart, replayed: true, position: recorded.position };
    }
    return {
      gatewayId,
      bootId,
      ...outcome,
      abandonedTurns: abandoned.turns,
      continued: continued.keys,
      replayed: false,
      position: Math.max(position, recorded.position),
    };
  }

  /** Hermes' auto-resume: the gateway's own queue loop runs the continuation first, and messages that arrive meanwhile wait behind it. */
  private async queueContinuations(resume: ResumeCandidate[], bootId: string, metadata: EventMetadata): Promise<{ keys: string[]; position: number }> {
    const keys: string[] = [];
    let position = 0;
    for (const candidate of resume) {
      const interruptedText = await this.interruptedText(candidate.sessionKey, metadata.tenant);
      const continuation = { reason: candidate.reason, bootId, interruptedText };
      // Named after the boot, so the same boot's retry names the same message.
      const queue = { type: 'QueueContinuation' as const, messageId: `auto-continue:${bootId}`, continuation };
      const result = await this.commands.execute(new ChangeConversationCommand(candidate.sessionKey, queue, metadata));
      position = Math.max(position, result.position);
      if (waitingContinuation(result.state)) keys.push(candidate.sessionKey);
    }
    return { keys, position };
  }

  /**
   * The text of the turn the restart cut short, where the ledger knows it: the runtime turn left in flight or
   * interrupted, else the last message the gateway took from the queue for the current session.
   */
  private async interruptedText(sessionKey: string, tenant: string | undefined): Promise<string | null> {
    const binding = await this.commandContext.streams.load(runtimeBindingStreamName(sessionKey, tenant), runtimeBindingDecider);
    if (binding.state.runtimeSessionId !== null) {
      const runtime = await this.commandContext.streams.load(runtimeSessionStreamName(binding.state.runtimeSessionId, tenant), runtimeSessionDecider);
      const last = runtime.state.recentTurns.at(-1);
      if (last && (last.status === 'in_flight' || last.status === 'interrupted')) return last.input;
    }
    const { state } = await this.commandContext.streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
    const taken = state.lastDequeued;
    if (taken && state.createdAt && Date.parse(taken.at) >= Date.parse(state.createdAt)) return taken.text;
    return null;
  }

  private async abandonTurnsInFlight(gatewayId: string, now: Date, metadata: EventMetadata): Promise<{ turns: AbandonedTurnRef[]; position: number }> {
    const turns: AbandonedTurnRef[] = [];
    let position = 0;
    for (const sessionId of await gatewayTurnsInFlight(this.readModels, this.config.readModelSchema, gatewayId, metadata.tenant, now)) {
      const result = await this.commands.execute(
        new ChangeSessionCommand(sessionId, { type: 'AbandonTurn', reason: 'gateway_restart', startedBy: now.toISOString(), gatewayId }, metadata),
      );
      position = Math.max(position, result.position);
      for (const event of result.decided) {
        if (event.type === 'TurnAbandoned') turns.push({ sessionId, turnIndex: (event.data as { turnIndex: number }).turnIndex });
      }
    }
    return { turns, position };
  }

  /** A gateway belongs to one tenant: its recovery touches that tenant's conversations only. */
  private async conversationKeys(gatewayId: string, tenant: string | undefined, condition: string, params: unknown[]): Promise<string[]> {
    const table = `${quoteIdentifier(this.config.readModelSchema)}.conversation_entries`;
    const rows: Array<{ session_key: string }> = await this.readModels.query(
      `SELECT session_key FROM ${table} WHERE gateway_id = $1 AND tenant = $2 ${condition} ORDER BY session_key`,
      [gatewayId, tenant ?? '', ...params],
    );
    return rows.map((row) => row.session_key);
  }

  /** Hermes' auto-resume rule, checked on each conversation's own stream: fresh, not suspended, origin known. */
  private async resumeCandidates(keys: string[], now: Date, tenant: string | undefined): Promise<ResumeCandidate[]> {
    const candidates: ResumeCandidate[] = [];
    for (const sessionKey of keys) {
      const { state } = await this.commandContext.streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
      if (state.status !== 'open' || state.suspended || !state.resumePending || !state.origin || !state.sessionId) continue;
      if (!state.resumeReason || !resumeReasons.includes(state.resumeReason)) continue;
      const age = (now.getTime() - Date.parse(state.lastResumeMarkedAt ?? '')) / 1000;
      if (!this.fresh(age)) continue;
      candidates.push({ sessionKey, sessionId: state.sessionId, reason: state.resumeReason, origin: state.origin });
    }
    return candidates;
  }

  /** Hermes' freshness window; 0 or less: always fresh. */
  private fresh(ageSeconds: number): boolean {
    const window = this.commandContext.settings.resumeFreshnessSeconds;
    return window <= 0 || ageSeconds <= window;
  }

  /**
   * Hermes' other auto-continue case, read from the history: the current session's last live message is a tool
   * result the agent never answered (the process died between the tool and the model's next call), in a
   * conversation of this gateway active within the freshness window and not suspended. It resumes as
   * restart_interrupted; a conversation with a resume mark is already a candidate.
   */
  private async toolTails(gatewayId: string, now: Date, already: ReadonlySet<string>, tenant: string | undefined): Promise<ResumeCandidate[]> {
    const window = this.commandContext.settings.resumeFreshnessSeconds;
    const recent = window > 0 ? ['AND updated_at >= $3', [new Date(now.getTime() - window * 1000)]] : ['', []];
    const keys = await this.conversationKeys(gatewayId, tenant, `AND NOT suspended AND NOT resume_pending ${recent[0] as string}`, recent[1] as unknown[]);
    const candidates: ResumeCandidate[] = [];
    for (const sessionKey of keys) {
      if (already.has(sessionKey)) continue;
      const { state } = await this.commandContext.streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
      if (state.status !== 'open' || state.suspended || !state.origin || !state.sessionId) continue;
      const session = await this.commandContext.streams.load(sessionStreamName(state.sessionId, tenant), sessionDecider);
      if (session.state.status !== 'active' || session.state.turnInFlight) continue;
      const last = findLastItem(session.state.transcript, (message) => !message.deleted);
      if (last?.role !== 'tool') continue;
      candidates.push({ sessionKey, sessionId: state.sessionId, reason: 'restart_interrupted', origin: state.origin });
    }
    return candidates;
  }
}
