// Inputs in Hermes' SessionSource field names, with the prompt Hermes' own build_session_context_prompt returned for
// them (Slack and Discord tools not loaded, the Hermes home shown as ~/.hermes): test/fixtures/hermesContextPrompts.jsonl.
import { readFileSync } from 'node:fs';

export interface HermesVector {
  label: string;
  source: Record<string, string>;
  connected_platforms: string[];
  home_channels: Record<string, { chat_id: string; name: string }>;
  shared_multi_user_session: boolean;
  redact_pii: boolean;
  prompt: string;
}

export const hermesContextPromptVectors: HermesVector[] = readFileSync(new URL('../fixtures/hermesContextPrompts.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as HermesVector);
