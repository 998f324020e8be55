// Time travel and audit over HTTP: a stream's raw events, and a session's state as of a revision or a time.
import { Controller, Get, Inject, Param, Req } from '@nestjs/common';
import type { Request } from '../../http/httpTypes.js';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { conversationStreamName } from '../../events/conversation/conversationEvents.js';
import type { EventStore, RecordedEvent } from '../../events/eventStore.js';
import { StreamNotFoundError } from '../../events/eventStoreErrors.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import { ValidQuery } from '../../http/zodValidation.js';
import { conversationNotFound } from '../conversations/domain/conversationDecider.js';
import { validSessionKey } from '../conversations/conversationRequests.js';
import { CommandContext } from '../commandContext.js';
import { requestTenant } from '../../http/auth.js';
import { loadSession } from './sessionAccess.js';
import { recordedEventView } from './recordedEventView.js';
import { sessionDecider, sessionNotFound } from './domain/sessionDecider.js';
import { eventsQuerySchema, stateQuerySchema, validSessionId } from './sessionRequests.js';
import { sessionStateView } from './sessionStateView.js';
import { stateAsOf } from './stateAsOf.js';

@ApiTags('audit')
@Controller('v1')
export class SessionHistoryController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly commandContext: CommandContext,
  ) {}

  @Get('sessions/:id/events')
  @ApiOperation({ summary: "A session stream's events, oldest first: revision, position, type, data, metadata (actor, correlation id), created-at" })
  @ApiQuery({ name: 'fromRevision', required: false })
  @ApiQuery({ name: 'limit', required: false })
  async sessionEvents(@Param('id') id: string, @ValidQuery(eventsQuerySchema) query: z.infer<typeof eventsQuerySchema>, @Req() request: Request) {
    return this.page(sessionStreamName(validSessionId(id), requestTenant(request)), query, () => sessionNotFound(id));
  }

  @Get('conversations/:key/events')
  @ApiOperation({ summary: "A conversation stream's events, oldest first" })
  @ApiParam({ name: 'key', description: 'The session key, URL-encoded' })
  @ApiQuery({ name: 'fromRevision', required: false })
  @ApiQuery({ name: 'limit', required: false })
  async conversationEvents(@Param('key') key: string, @ValidQuery(eventsQuerySchema) query: z.infer<typeof eventsQuerySchema>, @Req() request: Request) {
    return this.page(conversationStreamName(validSessionKey(key), requestTenant(request)), query, conversationNotFound);
  }

  @Get('sessions/:id/state')
  @ApiOperation({ summary: 'The session as it was at ?revision=N or ?at=<ISO time> (by replay), or now' })
  @ApiQuery({ name: 'revision', required: false })
  @ApiQuery({ name: 'at', required: false })
  async state(@Param('id') id: string, @ValidQuery(stateQuerySchema) query: z.infer<typeof stateQuerySchema>, @Req() request: Request) {
    if (query.revision === undefined && query.at === undefined) {
      const { state, revision, position } = await loadSession(this.commandContext, id, request);
      return sessionStateView(state, { revision, position });
    }
    const bound = query.revision !== undefined ? { revision: query.revision } : { at: new Date(query.at!) };
    const then = await stateAsOf(this.commandContext.streams, sessionStreamName(validSessionId(id), requestTenant(request)), sessionDecider, bound, () =>
      sessionNotFound(id),
    );
    return sessionStateView(then.state, then);
  }

  private async page(streamName: string, query: z.infer<typeof eventsQuerySchema>, notFound: () => Error) {
    let events: RecordedEvent[];
    try {
      events = await this.store.readStream(streamName, { fromRevision: query.fromRevision, maxCount: query.limit + 1 });
    } catch (error) {
      if (error instanceof StreamNotFoundError) throw notFound();
      throw error;
    }
    const page = events.slice(0, query.limit);
    return { streamName, events: page.map(recordedEventView), nextRevision: events.length > query.limit ? events[query.limit]!.revision : null };
  }
}
