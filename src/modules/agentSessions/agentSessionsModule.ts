// Sessions without a gateway, named by a client's own id, and the item histories every session can hold.
import { Module } from '@nestjs/common';
import { AgentSessionsController } from './agentSessionsController.js';
import { SessionItemController } from './sessionItemController.js';
import { SessionItemsController } from './sessionItemsController.js';

@Module({ controllers: [AgentSessionsController, SessionItemsController, SessionItemController] })
export class AgentSessionsModule {}
