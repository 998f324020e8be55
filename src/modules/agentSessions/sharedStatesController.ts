// HTTP for shared key-value states inside a namespace (ADK's `app:` and `user:` state): read, and change by a delta.
import { Controller, Get, Inject, Param, Patch, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { CONFIG, type LedgerConfig } from '../../config/config.js';
import { EVENT_STORE, type EventStore } from '../../events/eventStore.js';
import { sharedStateStreamName } from '../../events/agentState/agentStateEvents.js';
import { requestTenant } from '../../http/auth.js';
import type { Request } from '../../http/httpTypes.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { validNamespace } from './agentSessionRequests.js';
import { changeStateRequestSchema, validDelta, validStateId } from './agentStateRequests.js';
import { sharedStateView } from './agentStateView.js';
import { changeSharedState } from './commands/changeAgentState.js';
import { type ItemWriteContext, itemWriteContextOf } from './commands/itemWriteContext.js';
import { agentStateDecider } from './domain/agentStateDecider.js';

const NamespaceParam = () => ApiParam({ name: 'namespace', description: '1-64 of A-Z a-z 0-9 _ . -' });
const StateIdParam = () => ApiParam({ name: 'stateId', description: "The state's id, URL-encoded (1-512 characters)" });

@ApiTags('agent sessions')
@Controller('v1/namespaces/:namespace/states')
export class SharedStatesController {
  private readonly context: ItemWriteContext;

  constructor(
    private readonly commandContext: CommandContext,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {
    this.context = itemWriteContextOf(commandContext, store);
  }

  @Get(':stateId')
  @NamespaceParam()
  @StateIdParam()
  @ApiOperation({ summary: 'A shared state: its keys and values (empty, at revision -1, when nothing was ever written to it); read from the log' })
  async get(@Param('namespace') namespace: string, @Param('stateId') stateId: string, @Req() request: Request) {
    const name = { namespace: validNamespace(namespace), stateId: validStateId(stateId) };
    const loaded = await this.commandContext.streams.load(sharedStateStreamName(name.namespace, name.stateId, requestTenant(request)), agentStateDecider);
    return sharedStateView(name, loaded);
  }

  @Patch(':stateId')
  @NamespaceParam()
  @StateIdParam()
  @ApiOperation({ summary: 'Change a shared state: each key of `delta` takes its value (null is a value); the other keys stay' })
  @DocumentedBody(changeStateRequestSchema, undefined, { delta: { theme: 'dark', visits: 3 } })
  async patch(
    @Param('namespace') namespace: string,
    @Param('stateId') stateId: string,
    @ValidBody(changeStateRequestSchema) body: z.infer<typeof changeStateRequestSchema>,
    @Req() request: Request,
  ) {
    const name = { namespace: validNamespace(namespace), stateId: validStateId(stateId) };
    const delta = validDelta(body.delta, this.config.limits, 'delta');
    const changed = await changeSharedState(this.context, name, delta, requestTenant(request), requestMetadata(request));
    return sharedStateView(name, changed);
  }
}
