// Queries of the sessions index: the recent-first listing, one entry by key, one session record, the session count, the sessions.json export.
import { Controller, Get, Inject, Param, Req } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { requestTenant } from '../../http/auth.js';
import { ReadsProjections } from '../../http/readYourWrites.js';
import { CLOCK } from '../../clock.js';
import { PROJECTIONS } from '../../projections/projectionRunner.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import { conversationStreamName } from '../../events/conversation/conversationEvents.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import { streamParked } from '../../projections/parkedStreams.js';
import type { ProjectionRunner } from '../../projections/projectionRunner.js';
import { ValidQuery } from '../../http/zodValidation.js';
import { conversationNotFound } from '../conversations/domain/conversationDecider.js';
import { validSessionKey } from '../conversations/conversationRequests.js';
import { decodeSessionsCursor, encodeSessionsCursor } from './queries/sessionsCursor.js';
import {
  allConversationEntries,
  countSessionRecords,
  findConversationEntry,
  findSessionRecord,
  listConversationEntries,
} from './queries/sessionsIndexQueries.js';
import { sessionNotFound } from './domain/sessionDecider.js';
import { validSessionId } from './sessionRequests.js';
import { toSessionEntryView } from './sessionEntryView.js';
import { exportedEntryOf, toSessionsJson } from './sessionsJsonExport.js';

const listSessionsQuery = z
  .object({
    /** Only entries active within this many minutes. */
    activeMinutes: z.coerce
      .number()
      .int()
      .min(1)
      .max(60 * 24 * 366 * 10)
      .optional(),
    platform: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/)
      .optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().max(2_000).optional(),
    minPosition: z.string().optional(),
  })
  .strict();

const lookupQuery = z.object({ minPosition: z.string().optional() }).strict();

const sessionCountQuery = z
  .object({
    /** Count up to this many: the answer says whether there are at least that many. */
    atLeast: z.coerce.number().int().min(1).max(1_000).default(1),
    minPosition: z.string().optional(),
  })
  .strict();

@ApiTags('sessions')
@Controller('v1')
@ApiQuery({ name: 'minPosition', required: false, description: 'Wait (bounded) until the sessions index has applied this position' })
export class SessionsQueryController {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
  ) {}

  /** A row built from part of a stream's history is never answered as if it were whole. */
  private async requireNotParked(streamNames: string[]): Promise<void> {
    const parked = await this.projections.parkedAmong('sessions-index', streamNames);
    if (parked.length > 0) throw streamParked('sessions-index', parked);
  }

  @Get('sessions')
  @ReadsProjections('sessions-index')
  @ApiOperation({ summary: "Conversation entries, most recent activity first (Hermes' list_sessions), cursor-paginated" })
  @ApiQuery({ name: 'activeMinutes', required: false })
  @ApiQuery({ name: 'platform', required: false })
  @ApiQuery({ name: 'limit', required: false })
  @ApiQuery({ name: 'cursor', required: false })
  async list(@ValidQuery(listSessionsQuery) query: z.infer<typeof listSessionsQuery>, @Req() request: Request) {
    const page = await listConversationEntries(this.readModels, {
      tenant: requestTenant(request),
      activeSince: query.activeMinutes === undefined ? undefined : new Date(this.clock.now().getTime() - query.activeMinutes * 60_000),
      platform: query.platform,
      limit: query.limit,
      after: query.cursor === undefined ? undefined : decodeSessionsCursor(query.cursor),
    });
    return { sessions: page.entries.map(toSessionEntryView), nextCursor: page.next ? encodeSessionsCursor(page.next) : null };
  }

  // The same entry under its first path, kept for the gateways written against it. It is left out of the OpenAPI
  // document: beside `/v1/sessions/{id}/…` it is ambiguous to tools that cannot know a session id is never `by-key`.
  @Get('sessions/by-key/:key')
  @ApiExcludeEndpoint()
  @ReadsProjections('sessions-index')
  async byKeyFirstPath(@Param('key') key: string, @ValidQuery(lookupQuery) query: z.infer<typeof lookupQuery>, @Req() request: Request) {
    return this.byKey(key, query, request);
  }

  @Get('conversations/:key/entry')
  @ReadsProjections('sessions-index')
  @ApiOperation({ summary: "The conversation's entry in the sessions index (Hermes' SessionEntry); also served at /v1/sessions/by-key/{key}" })
  @ApiParam({ name: 'key', description: 'The session key, URL-encoded' })
  async byKey(@Param('key') key: string, @ValidQuery(lookupQuery) _query: z.infer<typeof lookupQuery>, @Req() request: Request) {
    const tenant = requestTenant(request);
    const sessionKey = validSessionKey(key);
    const row = await findConversationEntry(this.readModels, sessionKey, tenant);
    await this.requireNotParked([conversationStreamName(sessionKey, tenant), ...(row?.sessionId ? [sessionStreamName(row.sessionId, tenant)] : [])]);
    if (!row) throw conversationNotFound();
    return toSessionEntryView(row);
  }

  @Get('sessions/:id/record')
  @ReadsProjections('sessions-index')
  @ApiOperation({ summary: 'One session instance: status, live message count and usage counters' })
  async record(@Param('id') id: string, @ValidQuery(lookupQuery) _query: z.infer<typeof lookupQuery>, @Req() request: Request) {
    const tenant = requestTenant(request);
    const sessionId = validSessionId(id);
    const row = await findSessionRecord(this.readModels, sessionId, tenant);
    await this.requireNotParked([sessionStreamName(sessionId, tenant)]);
    if (!row) throw sessionNotFound(id);
    const { tenant: _tenant, ...record } = row;
    return record;
  }

  @Get('session-count')
  @ReadsProjections('sessions-index')
  @ApiOperation({
    summary:
      "Whether the tenant holds at least atLeast sessions, ended, destroyed and pruned ones, children and forks included (Hermes' has_any_sessions is atLeast=2)",
  })
  @ApiQuery({ name: 'atLeast', required: false, description: 'Count up to this many (1-1000, default 1)' })
  async sessionCount(@ValidQuery(sessionCountQuery) query: z.infer<typeof sessionCountQuery>, @Req() request: Request) {
    const count = await countSessionRecords(this.readModels, requestTenant(request), query.atLeast);
    return { count, atLeast: query.atLeast, reached: count >= query.atLeast };
  }

  @Get('export/sessions.json')
  @ReadsProjections('sessions-index')
  @ApiOperation({ summary: "The whole index in Hermes' sessions.json shape: session_key → SessionEntry" })
  async exportSessionsJson(@ValidQuery(lookupQuery) _query: z.infer<typeof lookupQuery>, @Req() request: Request) {
    return toSessionsJson((await allConversationEntries(this.readModels, requestTenant(request))).map(exportedEntryOf));
  }
}
