// Agent runtime sessions bound to conversations: turns, detach, drift, approvals, the watchdog for stuck runtimes.
import { Module } from '@nestjs/common';
import { ChangeRuntimeSessionHandler } from './commands/changeRuntimeSession.js';
import { DetachRuntimeHandler } from './commands/detachRuntime.js';
import { EndConversationRuntimeHandler } from './commands/endConversationRuntime.js';
import { RequestRuntimeInterruptHandler } from './commands/requestRuntimeInterrupt.js';
import { StartRuntimeTurnHandler } from './commands/startRuntimeTurn.js';
import { ConversationRuntimeController } from './conversationRuntimeController.js';
import { RuntimeSessionsController } from './runtimeSessionsController.js';
import { RuntimeWatchdog } from './runtimeWatchdog.js';

@Module({
  controllers: [ConversationRuntimeController, RuntimeSessionsController],
  providers: [
    StartRuntimeTurnHandler,
    DetachRuntimeHandler,
    EndConversationRuntimeHandler,
    ChangeRuntimeSessionHandler,
    RequestRuntimeInterruptHandler,
    RuntimeWatchdog,
  ],
})
export class RuntimeModule {}
