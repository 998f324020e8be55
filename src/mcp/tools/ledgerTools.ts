// Every tool the ledger's MCP server offers, reads first.
import type { LedgerTool } from '../ledgerTool.js';
import { createCheckpointTool } from './createCheckpointTool.js';
import { forkSessionTool } from './forkSessionTool.js';
import { listSessionsTool } from './listSessionsTool.js';
import { readHistoryTool } from './readHistoryTool.js';
import { rollbackSessionTool } from './rollbackSessionTool.js';
import { searchSessionsTool } from './searchSessionsTool.js';
import { showSessionTool } from './showSessionTool.js';

export const ledgerTools: readonly LedgerTool[] = [
  searchSessionsTool,
  readHistoryTool,
  showSessionTool,
  listSessionsTool,
  createCheckpointTool,
  rollbackSessionTool,
  forkSessionTool,
];
