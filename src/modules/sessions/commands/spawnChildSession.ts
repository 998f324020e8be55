// Children and forks: a new session stream under a parent (agcore's create_child), a fork starting from the parent's state.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { LedgerConfig } from '../../../config/config.js';
import type { EventMetadata, JsonObject } from '../../../events/eventStore.js';
import { type ForkOrigin, sessionStreamName } from '../../../events/session/sessionEvents.js';
import { CONFIG } from '../../../config/config.js';
import { CommandContext } from '../../commandContext.js';
import { findCheckpoint, requireSpawnAllowed, sessionDecider, sessionDestroyed, sessionNotFound, type SessionState } from '../domain/sessionDecider.js';
import { timelineOf } from '../domain/sessionState.js';
import type { SessionTimeline } from '../../../events/session/sessionTimeline.js';

/** child: an empty session; fork: a copy of the parent's state at a checkpoint (null: as it is now). */
export type SpawnKind = { kind: 'child' } | { kind: 'fork'; checkpointId: string | null };

export class SpawnChildSessionCommand extends Command<SpawnChildSessionResult> {
  constructor(
    readonly parentSessionId: string,
    readonly spawn: SpawnKind,
    readonly agentName: string | null,
    readonly childMetadata: JsonObject,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface SpawnChildSessionResult {
  sessionId: string;
  parentSessionId: string;
  kind: SpawnKind['kind'];
  forkOf: ForkOrigin | null;
  state: SessionState;
  revision: number;
  position: number;
}

@CommandHandler(SpawnChildSessionCommand)
export class SpawnChildSessionHandler implements ICommandHandler<SpawnChildSessionCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  async execute({ parentSessionId, spawn, agentName, childMetadata, metadata }: SpawnChildSessionCommand): Promise<SpawnChildSessionResult> {
    const { streams } = this.commandContext;
    const parentStream = sessionStreamName(parentSessionId, metadata.tenant);
    const parent = await streams.load(parentStream, sessionDecider);
    if (parent.state.status === 'absent') throw sessionNotFound(parentSessionId);
    if (parent.state.status === 'destroyed') throw sessionDestroyed(parentSessionId);
    // Checked on the parent as loaded: spawns racing on one parent may pass it together (at most one each).
    requireSpawnAllowed(parent.state, this.config.limits);
    const fork = spawn.kind === 'fork' ? await this.forkPoint(parentStream, parent.state, parent.revision, spawn.checkpointId) : null;
    const forkOf: ForkOrigin | null = fork && { sessionId: parentSessionId, checkpointId: fork.checkpointId, revision: fork.revision };
    const sessionId = this.commandContext.newSessionId();
    const now = this.commandContext.now();
    // The child first: if the process dies before the parent records it, the child exists all the same and
    // the tree (built from the child's SessionCreated) shows it; the parent's record is for its own history.
    const created = await streams.handle(
      sessionStreamName(sessionId, metadata.tenant),
      sessionDecider,
      {
        type: 'CreateSession',
        sessionId,
        sessionKey: parent.state.sessionKey,
        origin: parent.state.origin,
        reason: spawn.kind,
        now,
        parentSessionId,
        depth: parent.state.depth + 1,
        ...(agentName === null ? {} : { agentName }),
        metadata: childMetadata,
        ...(fork && forkOf ? { forkOf, startingState: fork.startingState } : {}),
      },
      metadata,
    );
    const recorded = await streams.handle(
      parentStream,
      sessionDecider,
      {
        type: 'RecordChildSession',
        childSessionId: sessionId,
        kind: spawn.kind,
        agentName,
        ...(fork ? { forkOf: { checkpointId: fork.checkpointId, revision: fork.revision } } : {}),
        now,
      },
      metadata,
    );
    return {
      sessionId,
      parentSessionId,
      kind: spawn.kind,
      forkOf,
      state: created.state,
      revision: created.revision,
      position: Math.max(created.position, recorded.position),
    };
  }

  /** The parent's state to start from; self-contained, so the child never reads the parent's stream again. */
  private async forkPoint(
    parentStream: string,
    current: SessionState,
    currentRevision: number,
    checkpointId: string | null,
  ): Promise<{ checkpointId: string | null; revision: number; startingState: SessionTimeline }> {
    let state = current;
    let revision = currentRevision;
    if (checkpointId !== null) {
      revision = findCheckpoint(current, checkpointId).revision;
      state = (await this.commandContext.streams.loadAt(parentStream, sessionDecider, { revision })).state;
    }
    // The child starts a history of its own: the parent's checkpoints are not its checkpoints.
    return { checkpointId, revision, startingState: { ...timelineOf(state), headCheckpointId: null } };
  }
}
