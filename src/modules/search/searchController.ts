// GET /v1/search: full-text search over the transcripts of every session the token's tenant holds.
import { Controller, Get, Inject, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { DataSource } from 'typeorm';
import { PROJECTIONS } from '../../projections/projectionRunner.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import { requestTenant } from '../../http/auth.js';
import { ReadsProjections } from '../../http/readYourWrites.js';
import { ValidQuery } from '../../http/zodValidation.js';
import { streamParked } from '../../projections/parkedStreams.js';
import type { ProjectionRunner } from '../../projections/projectionRunner.js';
import { type SearchRequest, searchRequest } from './searchRequests.js';
import { searchTranscripts } from './searchTranscripts.js';

const PROJECTION = 'transcript-search';

@ApiTags('search')
@Controller('v1')
export class SearchController {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
  ) {}

  @Get('search')
  @ReadsProjections(PROJECTION)
  @ApiOperation({
    summary: 'Full-text search over transcripts and item histories: words, "quoted phrases", -excluded, OR; Chinese and other unsegmented text too',
    description:
      'Hits by rank, or with groupBy=session the best sessions with their best hits. Only messages of the current timeline, ' +
      'not rewound, rewritten away or in a destroyed session, unless includeDeleted / includeRolledBack. See docs/api.md#search.',
  })
  @ApiQuery({ name: 'q', required: true, description: 'What to find (at most 500 characters)' })
  @ApiQuery({ name: 'sessionKey', required: false })
  @ApiQuery({ name: 'sessionId', required: false })
  @ApiQuery({ name: 'platform', required: false })
  @ApiQuery({
    name: 'role',
    required: false,
    description: "A message's role (system, user, assistant, tool) or an item's (its role, content role or type); 1-64 of A-Z a-z 0-9 _ . : -",
  })
  @ApiQuery({ name: 'source', required: false, enum: ['transcript', 'items'], description: 'Only transcript messages, or only items of item histories' })
  @ApiQuery({ name: 'since', required: false, description: 'ISO 8601: messages at or after' })
  @ApiQuery({ name: 'until', required: false, description: 'ISO 8601: messages before' })
  @ApiQuery({ name: 'limit', required: false, description: 'Hits (or sessions with groupBy=session) per page, 1-100, default 20' })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiQuery({ name: 'groupBy', required: false, enum: ['session'] })
  @ApiQuery({ name: 'hitsPerSession', required: false, description: 'With groupBy=session: best hits per session, 1-10, default 3' })
  @ApiQuery({ name: 'includeDeleted', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'includeRolledBack', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'minPosition', required: false, description: 'Wait (bounded) until the search index has applied this position' })
  async search(@ValidQuery(searchRequest) query: SearchRequest, @Req() request: Request) {
    const tenant = requestTenant(request);
    // One session's hits from a stream the index went on without would be answered as if whole.
    if (query.sessionId !== undefined) {
      const parked = await this.projections.parkedAmong(PROJECTION, [sessionStreamName(query.sessionId, tenant)]);
      if (parked.length > 0) throw streamParked(PROJECTION, parked);
    }
    return searchTranscripts(this.readModels, tenant, query);
  }
}
