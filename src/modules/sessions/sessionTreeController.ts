// HTTP for session trees: spawn a child or a fork, and read children, parent and subtree from the session-tree read model.
import { Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import type { JsonObject } from '../../events/eventStore.js';
import { requestTenant } from '../../http/auth.js';
import { ReadsProjections } from '../../http/readYourWrites.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { sessionTreeProjection } from '../../projections/sessionTree/sessionTreeProjection.js';
import { requestMetadata } from '../commandContext.js';
import { SpawnChildSessionCommand } from './commands/spawnChildSession.js';
import { sessionNotFound } from './domain/sessionDecider.js';
import { childRequestSchema, childrenQuerySchema, forkRequestSchema, positionQuerySchema, treeQuerySchema, validSessionId } from './sessionRequests.js';
import { findTreeNode, listChildren, listSubtree, treeNodeView } from './tree/sessionTreeQueries.js';

const TREE = sessionTreeProjection.name;
const MinPosition = () => ApiQuery({ name: 'minPosition', required: false, description: 'Wait (bounded) until the session tree has applied this position' });

@ApiTags('session trees')
@Controller('v1/sessions/:id')
export class SessionTreeController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
  ) {}

  @Post('children')
  @HttpCode(201)
  @ApiOperation({ summary: "Create a child session (agcore's create_child): empty, with the parent's origin" })
  @DocumentedBody(childRequestSchema)
  async createChild(@Param('id') id: string, @ValidBody(childRequestSchema) body: z.infer<typeof childRequestSchema>, @Req() request: Request) {
    const result = await this.commands.execute(
      new SpawnChildSessionCommand(validSessionId(id), { kind: 'child' }, body.agentName, body.metadata as JsonObject, requestMetadata(request)),
    );
    return {
      sessionId: result.sessionId,
      parentSessionId: result.parentSessionId,
      kind: result.kind,
      agentName: body.agentName,
      revision: result.revision,
      position: result.position,
    };
  }

  @Post('fork')
  @HttpCode(201)
  @ApiOperation({ summary: "Fork: a child session starting from the parent's state at a checkpoint (omitted: now), self-contained" })
  @DocumentedBody(forkRequestSchema)
  async fork(@Param('id') id: string, @ValidBody(forkRequestSchema) body: z.infer<typeof forkRequestSchema>, @Req() request: Request) {
    const result = await this.commands.execute(
      new SpawnChildSessionCommand(
        validSessionId(id),
        { kind: 'fork', checkpointId: body.checkpointId ?? null },
        body.agentName ?? null,
        body.metadata as JsonObject,
        requestMetadata(request),
      ),
    );
    return {
      sessionId: result.sessionId,
      parentSessionId: result.parentSessionId,
      kind: result.kind,
      forkOf: result.forkOf,
      turnIndex: result.state.turnCount,
      revision: result.revision,
      position: result.position,
    };
  }

  @Get('children')
  @ReadsProjections(TREE)
  @MinPosition()
  @ApiOperation({ summary: 'Live children, oldest first, cursor-paginated' })
  @ApiQuery({ name: 'limit', required: false, description: '1-500, default 100' })
  @ApiQuery({ name: 'cursor', required: false, description: "The previous page's nextCursor" })
  async children(@Param('id') id: string, @ValidQuery(childrenQuerySchema) query: z.infer<typeof childrenQuerySchema>, @Req() request: Request) {
    const node = await this.node(id, request);
    const page = await listChildren(this.readModels, node, query.limit, query.cursor);
    return { sessionId: node.sessionId, children: page.items, nextCursor: page.nextCursor };
  }

  @Get('parent')
  @ReadsProjections(TREE)
  @MinPosition()
  @ApiOperation({ summary: 'The parent; null for a root and for an orphan whose parent was destroyed' })
  async parent(@Param('id') id: string, @ValidQuery(positionQuerySchema) _query: z.infer<typeof positionQuerySchema>, @Req() request: Request) {
    const node = await this.node(id, request);
    const parent = node.parentId === null ? null : await findTreeNode(this.readModels, node.parentId, node.tenant);
    const live = parent && !parent.destroyed ? parent : null;
    return { sessionId: node.sessionId, parent: live && treeNodeView(live), orphaned: node.parentId !== null && live === null };
  }

  @Get('tree')
  @ReadsProjections(TREE)
  @MinPosition()
  @ApiOperation({ summary: 'The live subtree, the session first, depth-first with depths relative to it; paginated' })
  @ApiQuery({ name: 'limit', required: false, description: '1-500, default 100' })
  @ApiQuery({ name: 'cursor', required: false, description: "The previous page's nextCursor" })
  @ApiQuery({ name: 'maxDepth', required: false, description: 'How many levels below the session to include (default 100)' })
  async tree(@Param('id') id: string, @ValidQuery(treeQuerySchema) query: z.infer<typeof treeQuerySchema>, @Req() request: Request) {
    const node = await this.node(id, request);
    const page = await listSubtree(this.readModels, node, query.limit, query.maxDepth, query.cursor);
    return { sessionId: node.sessionId, rootSessionId: node.rootId, depth: node.depth, nodes: page.items, nextCursor: page.nextCursor };
  }

  private async node(id: string, request: Request) {
    const node = await findTreeNode(this.readModels, validSessionId(id), requestTenant(request));
    if (!node) throw sessionNotFound(id);
    return node;
  }
}
