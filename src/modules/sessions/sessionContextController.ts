// HTTP for what a session's agent keeps beside its transcript: memory entries and context slots.
import { Controller, Delete, Get, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from '../../http/httpTypes.js';
import type { z } from 'zod';
import type { JsonObject, JsonValue } from '../../events/eventStore.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { CommandContext } from '../commandContext.js';
import { changeSession } from './commands/changeSession.js';
import { loadSession } from './sessionAccess.js';
import { memoryRequestSchema, slotRequestSchema, validMemoryName, validSlotName } from './sessionRequests.js';
import { slotsView } from './sessionStateView.js';
import { eventOfType } from '../../events/eventOfType.js';

@ApiTags('sessions')
@Controller('v1/sessions/:id')
export class SessionContextController {
  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
  ) {}

  @Get('memory')
  @ApiOperation({ summary: 'Session memory entries by name: value, metadata, created and updated at' })
  async memory(@Param('id') id: string, @Req() request: Request) {
    const { state, revision, position } = await loadSession(this.commandContext, id, request);
    return { sessionId: state.sessionId, entries: state.memory, revision, position };
  }

  @Put('memory/:name')
  @ApiOperation({ summary: 'Set a memory entry (created-at is kept when it already exists)' })
  @DocumentedBody(memoryRequestSchema)
  async setMemory(
    @Param('id') id: string,
    @Param('name') name: string,
    @ValidBody(memoryRequestSchema) body: z.infer<typeof memoryRequestSchema>,
    @Req() request: Request,
  ) {
    const entryName = validMemoryName(name);
    const result = await changeSession(
      this.commands,
      id,
      { type: 'SetMemoryEntry', name: entryName, value: body.value as JsonValue, metadata: body.metadata as JsonObject },
      request,
    );
    const entry = result.state.memory.find((candidate) => candidate.name === entryName)!;
    return { ...entry, revision: result.revision, position: result.position };
  }

  @Delete('memory/:name')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove a memory entry (404 MEMORY_ENTRY_NOT_FOUND when there is none)' })
  async removeMemory(@Param('id') id: string, @Param('name') name: string, @Req() request: Request) {
    const entryName = validMemoryName(name);
    const result = await changeSession(this.commands, id, { type: 'RemoveMemoryEntry', name: entryName }, request);
    return { name: entryName, removed: true, revision: result.revision, position: result.position };
  }

  @Get('slots')
  @ApiOperation({ summary: 'Context slots with their live message counts, and which is current' })
  async slots(@Param('id') id: string, @Req() request: Request) {
    const { state, revision, position } = await loadSession(this.commandContext, id, request);
    return { sessionId: state.sessionId, currentSlot: state.currentSlot, slots: slotsView(state), revision, position };
  }

  @Post('slots')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a context slot (409 SLOT_EXISTS); switch to it to send turns there' })
  @DocumentedBody(slotRequestSchema)
  async createSlot(@Param('id') id: string, @ValidBody(slotRequestSchema) body: z.infer<typeof slotRequestSchema>, @Req() request: Request) {
    const name = validSlotName(body.name);
    const result = await changeSession(this.commands, id, { type: 'CreateSlot', name }, request);
    return { ...result.state.slots.find((slot) => slot.name === name)!, revision: result.revision, position: result.position };
  }

  @Post('slots/:name/switch')
  @HttpCode(200)
  @ApiOperation({ summary: 'Make a slot current: later turns, rewinds and rewrites go to it' })
  async switchSlot(@Param('id') id: string, @Param('name') name: string, @Req() request: Request) {
    const result = await changeSession(this.commands, id, { type: 'SwitchSlot', name: validSlotName(name) }, request);
    const switched = eventOfType(result.decided, 'SlotSwitched')?.data;
    return {
      currentSlot: result.state.currentSlot,
      previous: switched?.previous ?? result.state.currentSlot,
      revision: result.revision,
      position: result.position,
    };
  }
}
