// The ledger's MCP server over Streamable HTTP (POST /mcp) and GET /v1/whoami, which MCP's stdio server asks for its scope.
import { Module } from '@nestjs/common';
import { McpController } from './mcpController.js';
import { WhoamiController } from './whoamiController.js';

@Module({ controllers: [McpController, WhoamiController] })
export class McpModule {}
