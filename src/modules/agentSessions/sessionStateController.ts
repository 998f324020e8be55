// HTTP for a session's own key-value state (ADK's session state): read, and change by a delta, fenced like any session write.
import { Controller, Get, Inject, Param, Patch, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { CONFIG, type LedgerConfig } from '../../config/config.js';
import { EVENT_STORE, type EventStore } from '../../events/eventStore.js';
import { sessionStateStreamName } from '../../events/agentState/agentStateEvents.js';
import { requestTenant } from '../../http/auth.js';
import type { Request } from '../../http/httpTypes.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { loadSession } from '../sessions/sessionAccess.js';
import { validSessionId } from '../sessions/sessionRequests.js';
import { changeValuesRequestSchema, validStateDeltas } from './agentStateRequests.js';
import { sessionStateView } from './agentStateView.js';
import { changeSessionState } from './commands/changeAgentState.js';
import { type ItemWriteContext, itemWriteContextOf } from './commands/itemWriteContext.js';
import { agentStateDecider } from './domain/agentStateDecider.js';

@ApiTags('agent sessions')
@Controller('v1/sessions/:id/values')
export class SessionStateController {
  private readonly context: ItemWriteContext;

  constructor(
    private readonly commandContext: CommandContext,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {
    this.context = itemWriteContextOf(commandContext, store);
  }

  @Get()
  @ApiOperation({ summary: "The session's own key-value state, with the session's revision (what If-Match names)" })
  async get(@Param('id') id: string, @Req() request: Request) {
    const session = await loadSession(this.commandContext, id, request);
    const loaded = await this.commandContext.streams.load(sessionStateStreamName(session.state.sessionId, requestTenant(request)), agentStateDecider);
    return sessionStateView(session.state.sessionId, session, loaded);
  }

  @Patch()
  @ApiOperation({
    summary: "Change the session's own values: each key of `delta` takes its value (null is a value), the other keys stay; shared states in the same append",
  })
  @DocumentedBody(changeValuesRequestSchema, undefined, { delta: { topic: 'weather' } })
  async patch(@Param('id') id: string, @ValidBody(changeValuesRequestSchema) body: z.infer<typeof changeValuesRequestSchema>, @Req() request: Request) {
    const sessionId = validSessionId(id);
    const deltas = validStateDeltas({ stateDelta: body.delta, sharedStateDeltas: body.sharedStateDeltas }, this.config.limits);
    const changed = await changeSessionState(this.context, sessionId, deltas, requestTenant(request), requestMetadata(request));
    return sessionStateView(sessionId, changed.session, changed.state);
  }
}
