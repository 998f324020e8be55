// HTTP for one session: turns, transcript (read, rewrite, rewind) and its folded state.
import { Controller, Get, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { z } from 'zod';
import type { MessageInput } from '../../events/session/sessionEvents.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import { DocumentedBody, ValidBody, ValidQuery } from '../../http/zodValidation.js';
import { Lifecycle, requestMetadata } from '../lifecycle.js';
import { ChangeSessionCommand, type SessionChange, type SessionChangeResult } from './commands/changeSession.js';
import { sessionDecider, sessionNotFound } from './sessionDecider.js';
import { rewindRequestSchema, rewriteRequestSchema, transcriptQuerySchema, turnRequestSchema, validSessionId } from './sessionRequests.js';

@ApiTags('sessions')
@Controller('v1/sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly lifecycle: Lifecycle,
  ) {}

  @Get(':id')
  @ApiOperation({ summary: 'A session: status, counters, turn count (folded from its stream)' })
  async get(@Param('id') id: string) {
    const { state, revision, position } = await this.load(id);
    const { transcript, nextMessageIndex, ...summary } = state;
    return { ...summary, messageCount: transcript.filter((message) => !message.deleted).length, revision, position };
  }

  @Post(':id/turns')
  @HttpCode(201)
  @ApiOperation({ summary: 'Record a turn: messages and usage; a completed turn clears the conversation’s resume mark' })
  @DocumentedBody(turnRequestSchema)
  async recordTurn(@Param('id') id: string, @ValidBody(turnRequestSchema) body: z.infer<typeof turnRequestSchema>, @Req() request: Request) {
    const result = await this.change(id, { type: 'recordTurn', messages: body.messages as MessageInput[], usage: body.usage, status: body.status }, request);
    return { turnIndex: result.state.turnCount, revision: result.revision, position: result.position, counters: result.state.counters };
  }

  @Get(':id/transcript')
  @ApiOperation({ summary: 'The transcript; ?includeDeleted=true shows soft-deleted messages flagged' })
  async transcript(@Param('id') id: string, @ValidQuery(transcriptQuerySchema) query: z.infer<typeof transcriptQuerySchema>) {
    const { state, revision, position } = await this.load(id);
    const messages = query.includeDeleted ? state.transcript : state.transcript.filter((message) => !message.deleted).map(({ deleted: _deleted, ...message }) => message);
    return { sessionId: state.sessionId, messages, revision, position };
  }

  @Put(':id/transcript')
  @ApiOperation({ summary: 'Rewrite the transcript (compression); the old messages stay in history as deleted' })
  @DocumentedBody(rewriteRequestSchema)
  async rewrite(@Param('id') id: string, @ValidBody(rewriteRequestSchema) body: z.infer<typeof rewriteRequestSchema>, @Req() request: Request) {
    const result = await this.change(id, { type: 'rewrite', messages: body.messages as MessageInput[] }, request);
    const rewritten = result.decided.find((event) => event.type === 'TranscriptRewritten')?.data as { replacedCount: number } | undefined;
    return {
      messageCount: result.state.transcript.filter((message) => !message.deleted).length,
      replacedCount: rewritten?.replacedCount ?? 0,
      revision: result.revision,
      position: result.position,
    };
  }

  @Post(':id/rewind')
  @HttpCode(200)
  @ApiOperation({ summary: 'Undo the last n user turns by soft delete (/undo, /retry)' })
  @DocumentedBody(rewindRequestSchema)
  async rewind(@Param('id') id: string, @ValidBody(rewindRequestSchema) body: z.infer<typeof rewindRequestSchema>, @Req() request: Request) {
    const result = await this.change(id, { type: 'rewind', turns: body.turns }, request);
    const rewound = result.decided.find((event) => event.type === 'TranscriptRewound')?.data as
      | { rewoundCount: number; turnsUndone: number; targetText: string | null }
      | undefined;
    return {
      rewoundCount: rewound?.rewoundCount ?? 0,
      turnsUndone: rewound?.turnsUndone ?? 0,
      targetText: rewound?.targetText ?? null,
      revision: result.revision,
      position: result.position,
    };
  }

  private async load(id: string) {
    const loaded = await this.lifecycle.streams.load(sessionStreamName(validSessionId(id)), sessionDecider);
    if (loaded.source === 'empty') throw sessionNotFound(id);
    return loaded;
  }

  private change(id: string, change: SessionChange, request: Request): Promise<SessionChangeResult> {
    return this.commands.execute(new ChangeSessionCommand(validSessionId(id), change, requestMetadata(request)));
  }
}
