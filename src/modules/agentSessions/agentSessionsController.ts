// HTTP for sessions named by a client's own id inside a namespace: create or get, look up, list, delete.
import { randomUUID } from 'node:crypto';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import { EVENT_STORE } from '../../events/eventStore.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import type { EventStore } from '../../events/eventStore.js';
import { currentIdempotentWrite } from '../../events/idempotentWrite.js';
import { requestTenant } from '../../http/auth.js';
import type { Request, Response } from '../../http/httpTypes.js';
import { ReadsProjections } from '../../http/readYourWrites.js';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { DestroySessionCommand, type DestroySessionResult } from '../sessions/commands/destroySession.js';
import { decodeSessionsCursor, encodeSessionsCursor } from '../sessions/queries/sessionsCursor.js';
import { sessionNotFound } from '../sessions/domain/sessionDecider.js';
import {
  agentSessionRequestSchema,
  deleteAgentSessionQuerySchema,
  listAgentSessionsQuerySchema,
  metadataFilter,
  validExternalId,
  validNamespace,
} from './agentSessionRequests.js';
import { agentSessionView } from './agentSessionView.js';
import { type AgentSessionName, createAgentSession, findAgentSession } from './commands/createAgentSession.js';
import { type ItemWriteContext, itemWriteContextOf } from './commands/itemWriteContext.js';
import { listAgentSessions } from './queries/agentSessionsQueries.js';

const NamespaceParam = () => ApiParam({ name: 'namespace', description: '1-64 of A-Z a-z 0-9 _ . -' });
const ExternalIdParam = () => ApiParam({ name: 'externalId', description: "The client's own id of the session, URL-encoded (1-512 characters)" });

@ApiTags('agent sessions')
@Controller('v1/namespaces/:namespace/sessions')
export class AgentSessionsController {
  private readonly context: ItemWriteContext;

  constructor(
    private readonly commands: CommandBus,
    commandContext: CommandContext,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
  ) {
    this.context = itemWriteContextOf(commandContext, store);
  }

  @Put(':externalId')
  @NamespaceParam()
  @ExternalIdParam()
  @ApiResponse({ status: 201, description: 'the session was created' })
  @ApiResponse({ status: 200, description: 'the session of this id, created before' })
  @ApiOperation({ summary: 'Create the session of an external id, or get it: one session per id, whoever asks first (201 when created, 200 otherwise)' })
  @DocumentedBody(agentSessionRequestSchema, undefined, { agentName: 'support-bot', metadata: { userId: 'u-42' } })
  async put(
    @Param('namespace') namespace: string,
    @Param('externalId') externalId: string,
    @ValidBody(agentSessionRequestSchema) body: z.infer<typeof agentSessionRequestSchema>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    return this.create({ namespace: validNamespace(namespace), externalId: validExternalId(externalId) }, body, request, response);
  }

  @Post()
  @NamespaceParam()
  @ApiResponse({ status: 201, description: 'the session was created' })
  @ApiOperation({ summary: 'Create a session under an external id the service chooses (a UUID); retried with the same Idempotency-Key, the same one' })
  @DocumentedBody(agentSessionRequestSchema)
  async post(
    @Param('namespace') namespace: string,
    @ValidBody(agentSessionRequestSchema) body: z.infer<typeof agentSessionRequestSchema>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const keyed = currentIdempotentWrite();
    const externalId = keyed ? uuidOf(keyed.chosenHex('external-id', 32)) : randomUUID();
    return this.create({ namespace: validNamespace(namespace), externalId }, body, request, response);
  }

  @Get(':externalId')
  @NamespaceParam()
  @ExternalIdParam()
  @ApiOperation({ summary: 'The session of an external id: status, agent name, metadata, item count' })
  async get(@Param('namespace') namespace: string, @Param('externalId') externalId: string, @Req() request: Request) {
    const name = { namespace: validNamespace(namespace), externalId: validExternalId(externalId) };
    const found = await findAgentSession(this.context, name, requestTenant(request));
    if (!found) throw sessionNotFound(`${name.namespace}/${name.externalId}`);
    return agentSessionView(found.state, name, found.revision, found.position);
  }

  @Delete(':externalId')
  @HttpCode(200)
  @NamespaceParam()
  @ExternalIdParam()
  @ApiQuery({ name: 'cascade', required: false, description: 'true: its children (subagent histories) too' })
  @ApiOperation({ summary: 'Delete the session of an external id (its events stay for audit); creating the id again starts a new session' })
  async delete(
    @Param('namespace') namespace: string,
    @Param('externalId') externalId: string,
    @ValidQuery(deleteAgentSessionQuerySchema) query: z.infer<typeof deleteAgentSessionQuerySchema>,
    @Req() request: Request,
  ): Promise<DestroySessionResult> {
    const name = { namespace: validNamespace(namespace), externalId: validExternalId(externalId) };
    const found = await findAgentSession(this.context, name, requestTenant(request));
    if (!found) throw sessionNotFound(`${name.namespace}/${name.externalId}`);
    return this.commands.execute(new DestroySessionCommand(found.state.sessionId, query.cascade, requestMetadata(request)));
  }

  @Get()
  @NamespaceParam()
  @ReadsProjections('agent-sessions')
  @ApiOperation({ summary: "A namespace's sessions, most recently changed first, cursor-paginated; filters on change time and metadata" })
  @ApiQuery({ name: 'limit', required: false })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiQuery({ name: 'updatedAfter', required: false, description: 'ISO 8601: changed at or after' })
  @ApiQuery({ name: 'updatedBefore', required: false, description: 'ISO 8601: changed before' })
  @ApiQuery({ name: 'metadata', required: false, description: 'A JSON object the metadata must contain, URL-encoded' })
  @ApiQuery({ name: 'minPosition', required: false, description: 'Wait (bounded) until the listing has applied this position' })
  async list(
    @Param('namespace') namespace: string,
    @ValidQuery(listAgentSessionsQuerySchema) query: z.infer<typeof listAgentSessionsQuerySchema>,
    @Req() request: Request,
  ) {
    const page = await listAgentSessions(this.readModels, {
      tenant: requestTenant(request),
      namespace: validNamespace(namespace),
      limit: query.limit,
      ...(query.updatedAfter === undefined ? {} : { updatedAfter: new Date(query.updatedAfter) }),
      ...(query.updatedBefore === undefined ? {} : { updatedBefore: new Date(query.updatedBefore) }),
      ...(query.metadata === undefined ? {} : { metadata: metadataFilter(query.metadata) }),
      ...(query.cursor === undefined ? {} : { after: decodeSessionsCursor(query.cursor) }),
    });
    return {
      sessions: page.rows.map(({ tenant: _tenant, createdAt, updatedAt, ...row }) => ({
        ...row,
        createdAt: createdAt.toISOString(),
        updatedAt: updatedAt.toISOString(),
      })),
      nextCursor: page.next ? encodeSessionsCursor(page.next) : null,
    };
  }

  private async create(name: AgentSessionName, body: z.infer<typeof agentSessionRequestSchema>, request: Request, response: Response) {
    const result = await createAgentSession(this.context, name, body, requestTenant(request), requestMetadata(request));
    response.status(result.created ? 201 : 200);
    return { ...agentSessionView(result.state, name, result.revision, result.position), created: result.created };
  }
}

function uuidOf(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
