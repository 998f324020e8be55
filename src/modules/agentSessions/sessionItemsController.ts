// HTTP for a session's item history: append any JSON objects, read the newest or around an item, pop the last, clear.
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { CONFIG } from '../../config/config.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import type { LedgerConfig } from '../../config/config.js';
import { NotFoundError } from '../../errors/ledgerError.js';
import type { EventStore } from '../../events/eventStore.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import { requestTenant } from '../../http/auth.js';
import type { Request } from '../../http/httpTypes.js';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { sessionDecider, sessionNotFound } from '../sessions/domain/sessionDecider.js';
import { loadSession } from '../sessions/sessionAccess.js';
import { stateAsOf } from '../sessions/stateAsOf.js';
import { validSessionId } from '../sessions/sessionRequests.js';
import { itemsQuerySchema, validItems } from './agentSessionRequests.js';
import { appendItemsWithStatesSchema, validStateDeltas } from './agentStateRequests.js';
import { itemView } from './agentSessionView.js';
import { appendItems } from './commands/appendItems.js';
import { clearItems } from './commands/clearItems.js';
import { type ItemWriteContext, itemWriteContextOf } from './commands/itemWriteContext.js';
import { popItem } from './commands/popItem.js';
import { ItemHistory } from './items/itemLookup.js';
import { walkLiveItems } from './items/liveItems.js';

@ApiTags('items')
@Controller('v1/sessions/:id/items')
export class SessionItemsController {
  private readonly context: ItemWriteContext;

  constructor(
    private readonly commandContext: CommandContext,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {
    this.context = itemWriteContextOf(commandContext, store);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: "Append items (any JSON objects) to the session's history, in order; an item whose id the history holds already is not written again",
  })
  @DocumentedBody(appendItemsWithStatesSchema, undefined, { items: [{ type: 'message', role: 'user', content: 'Hello' }], idField: 'id' })
  async append(@Param('id') id: string, @ValidBody(appendItemsWithStatesSchema) body: z.infer<typeof appendItemsWithStatesSchema>, @Req() request: Request) {
    const sessionId = validSessionId(id);
    const items = validItems(body.items, body.idField, this.config.limits);
    const states = validStateDeltas(body, this.config.limits);
    const result = await appendItems(this.context, sessionId, requestTenant(request), { ...items, states }, requestMetadata(request));
    return { sessionId, items: result.items, itemCount: result.state.itemCount, revision: result.revision, position: result.position };
  }

  @Get()
  @ApiOperation({ summary: 'The newest `limit` items in order, or those before or after an item (by id); read from the log, never from a projection' })
  @ApiQuery({ name: 'limit', required: false, description: 'At most this many items (default 100, at most 1000)' })
  @ApiQuery({ name: 'before', required: false, description: "An item's id: the items older than it (the newest of them)" })
  @ApiQuery({ name: 'after', required: false, description: "An item's id: the items newer than it (the oldest of them)" })
  @ApiQuery({ name: 'revision', required: false, description: 'The history as it was at this revision of the session (time travel); now when absent' })
  async read(@Param('id') id: string, @ValidQuery(itemsQuerySchema) query: z.infer<typeof itemsQuerySchema>, @Req() request: Request) {
    const tenant = requestTenant(request);
    const { state, revision, position } =
      query.revision === undefined ? await loadSession(this.commandContext, id, request) : await this.sessionAt(id, query.revision, request);
    const history = new ItemHistory(this.store, tenant, state);
    const cursorId = query.before ?? query.after;
    const cursor = cursorId === undefined ? undefined : await history.find(sessionStreamName(state.sessionId, tenant), cursorId);
    if (cursorId !== undefined && !cursor)
      throw new NotFoundError('ITEM_NOT_FOUND', `session ${state.sessionId} holds no item ${cursorId}`, { itemId: cursorId });
    let items;
    let hasMore;
    if (query.after !== undefined) {
      // Everything after it is read (newest first), then the oldest `limit` of those answered.
      const newer = (await walkLiveItems(this.store, tenant, history.head(), { limit: Number.POSITIVE_INFINITY, downTo: cursor!.index + 1 })).items.reverse();
      items = newer.slice(0, query.limit);
      hasMore = newer.length > query.limit;
    } else {
      const from = cursor ? { sessionId: cursor.sessionId, fromRevision: cursor.revision - 1, below: cursor.index } : history.head();
      const page = await walkLiveItems(this.store, tenant, from, { limit: query.limit });
      items = page.items.reverse();
      hasMore = page.next !== null;
    }
    return { sessionId: state.sessionId, items: items.map(itemView), itemCount: state.itemCount, hasMore, status: state.status, revision, position };
  }

  /** The session as it was at a revision of its stream, by replay (`404 REVISION_NOT_FOUND` past its last). */
  private async sessionAt(id: string, revision: number, request: Request) {
    const then = await stateAsOf(this.commandContext.streams, sessionStreamName(validSessionId(id), requestTenant(request)), sessionDecider, { revision }, () =>
      sessionNotFound(id),
    );
    if (then.state.status === 'absent') throw sessionNotFound(id);
    return { ...then, state: then.state };
  }

  @Post('pop')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove the last item and answer it (null when the history is empty)' })
  async pop(@Param('id') id: string, @Req() request: Request) {
    const sessionId = validSessionId(id);
    const result = await popItem(this.context, sessionId, requestTenant(request), requestMetadata(request));
    return { sessionId, item: result.item && itemView(result.item), itemCount: result.state.itemCount, revision: result.revision, position: result.position };
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Clear the history: no item is in it any more (the log keeps them for audit)' })
  async clear(@Param('id') id: string, @Req() request: Request) {
    const sessionId = validSessionId(id);
    const result = await clearItems(this.context, sessionId, requestTenant(request), requestMetadata(request));
    return { sessionId, clearedCount: result.clearedCount, itemCount: result.state.itemCount, revision: result.revision, position: result.position };
  }
}
