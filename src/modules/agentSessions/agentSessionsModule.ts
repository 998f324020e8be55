// Sessions without a gateway, named by a client's own id, the item histories every session can hold, and key-value states.
import { Module } from '@nestjs/common';
import { AgentSessionsController } from './agentSessionsController.js';
import { SessionItemController } from './sessionItemController.js';
import { SessionItemsController } from './sessionItemsController.js';
import { SessionStateController } from './sessionStateController.js';
import { SharedStatesController } from './sharedStatesController.js';

@Module({ controllers: [AgentSessionsController, SessionItemsController, SessionItemController, SessionStateController, SharedStatesController] })
export class AgentSessionsModule {}
