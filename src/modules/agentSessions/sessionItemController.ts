// HTTP for one item of a session's history, by its id: the event store's id index finds it, whatever the history's length.
import { Controller, Get, Inject, Param, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE } from '../../events/eventStore.js';
import { NotFoundError } from '../../errors/ledgerError.js';
import type { EventStore } from '../../events/eventStore.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import { requestTenant } from '../../http/auth.js';
import type { Request } from '../../http/httpTypes.js';
import { CommandContext } from '../commandContext.js';
import { loadSession } from '../sessions/sessionAccess.js';
import { itemView } from './agentSessionView.js';
import { ItemHistory } from './items/itemLookup.js';

@ApiTags('items')
@Controller('v1/sessions/:id/items/:itemId')
export class SessionItemController {
  constructor(
    private readonly commandContext: CommandContext,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'One item of the history, by its id (URL-encoded): one look-up in the event index when nothing was removed from the history since it was appended; read from the log, never from a projection',
  })
  async read(@Param('id') id: string, @Param('itemId') itemId: string, @Req() request: Request) {
    const tenant = requestTenant(request);
    const { state, revision, position } = await loadSession(this.commandContext, id, request);
    const item = await new ItemHistory(this.store, tenant, state).find(sessionStreamName(state.sessionId, tenant), itemId);
    if (!item) throw new NotFoundError('ITEM_NOT_FOUND', `session ${state.sessionId} holds no item ${itemId}`, { itemId });
    return { sessionId: state.sessionId, item: itemView(item), itemCount: state.itemCount, revision, position };
  }
}
