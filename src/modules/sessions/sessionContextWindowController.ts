// HTTP for a session's context window: its live transcript as one provider's request body (contextWindow/ does the work).
import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Request } from '../../http/httpTypes.js';
import { ValidQuery } from '../../http/zodValidation.js';
import { CommandContext } from '../commandContext.js';
import { toArray } from './domain/chunkedList.js';
import { CONTEXT_WINDOW_FORMATS, contextWindow } from './contextWindow/contextWindow.js';
import { loadSession } from './sessionAccess.js';

export const contextWindowQuerySchema = z.strictObject({
  format: z.enum(CONTEXT_WINDOW_FORMATS),
  maxTokens: z.coerce.number().int().min(1).max(100_000_000).optional(),
});

@ApiTags('sessions')
@Controller('v1/sessions/:id')
export class SessionContextWindowController {
  constructor(private readonly commandContext: CommandContext) {}

  @Get('context-window')
  @ApiOperation({
    summary:
      "The current slot's live transcript as one provider's request body (openai-chat, openai-responses, anthropic, gemini): every tool call answered, cut to ?maxTokens= oldest first",
  })
  @ApiQuery({ name: 'format', required: true, enum: CONTEXT_WINDOW_FORMATS })
  @ApiQuery({ name: 'maxTokens', required: false, description: 'Estimated token budget (UTF-8 bytes / 4 + 4 per message); the system text is always kept' })
  async contextWindow(@Param('id') id: string, @ValidQuery(contextWindowQuerySchema) query: z.infer<typeof contextWindowQuerySchema>, @Req() request: Request) {
    const { state, revision, position } = await loadSession(this.commandContext, id, request);
    const live = toArray(state.transcript).filter((message) => message.slot === state.currentSlot && !message.deleted);
    return { sessionId: state.sessionId, revision, position, ...contextWindow(live, query.format, query.maxTokens) };
  }
}
