// Admin: the stream index, for audits ("which streams exist, how far has each got").
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { LessThan, type DataSource, type FindOptionsWhere } from 'typeorm';
import { z } from 'zod';
import { AdminOnly } from '../../http/auth.js';
import { ReadsProjections } from '../../http/readYourWrites.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import { ValidQuery } from '../../http/zodValidation.js';
import { StreamIndexEntity, type StreamIndexRow } from '../../projections/streamIndex/streamIndexRow.js';

const listStreamsQuery = z
  .object({
    category: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,64}$/)
      .optional(),
    limit: z.coerce.number().int().min(1).max(1_000).default(100),
    /** Exclusive: streams whose last event is older than this position (from the previous page's `nextCursor`). */
    cursor: z.coerce.number().int().min(0).optional(),
    minPosition: z.string().optional(),
  })
  .strict();

@ApiTags('admin')
@AdminOnly()
@Controller('v1/admin/streams')
export class StreamsController {
  constructor(@Inject(READ_MODELS) private readonly readModels: DataSource) {}

  @Get()
  @ReadsProjections('stream-index')
  @ApiOperation({ summary: 'Streams, newest activity first, optionally of one category (conversation, session, job, gateway)' })
  @ApiQuery({ name: 'category', required: false })
  @ApiQuery({ name: 'limit', required: false })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiQuery({ name: 'minPosition', required: false })
  async list(@ValidQuery(listStreamsQuery) query: z.infer<typeof listStreamsQuery>) {
    const where: FindOptionsWhere<StreamIndexRow> = {};
    if (query.category) where.category = query.category;
    if (query.cursor !== undefined) where.lastPosition = LessThan(query.cursor);
    const rows = await this.readModels.getRepository(StreamIndexEntity).find({ where, order: { lastPosition: 'DESC' }, take: query.limit });
    return { streams: rows, nextCursor: rows.length === query.limit ? rows[rows.length - 1]!.lastPosition : null };
  }
}
