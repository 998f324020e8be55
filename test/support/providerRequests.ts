// What a provider would refuse in a context window's request: its JSON Schema (test/fixtures/providerSchemas/), and
// the ordering rules no schema can say (each call answered right after it, roles alternating where required).
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { ContextWindowFormat } from '../../src/modules/sessions/contextWindow/contextWindow.js';

const schemaFiles: Record<ContextWindowFormat, string> = {
  'openai-chat': 'openaiChat.schema.json',
  'openai-responses': 'openaiResponses.schema.json',
  anthropic: 'anthropicMessages.schema.json',
  gemini: 'geminiGenerateContent.schema.json',
};

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = Object.fromEntries(
  Object.entries(schemaFiles).map(([format, file]) => [
    format,
    ajv.compile(JSON.parse(readFileSync(new URL(`../fixtures/providerSchemas/${file}`, import.meta.url), 'utf8'))),
  ]),
) as Record<ContextWindowFormat, ReturnType<typeof ajv.compile>>;

type Json = any;
const sameIds = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

function chatProblems(request: Json): string[] {
  const problems: string[] = [];
  const messages: Json[] = request.messages;
  messages.forEach((message, at) => {
    if (message.role === 'assistant' && message.tool_calls) {
      const calls = message.tool_calls.map((call: Json) => call.id);
      const answers = messages.slice(at + 1, at + 1 + calls.length);
      if (
        !answers.every((answer) => answer.role === 'tool') ||
        !sameIds(
          calls,
          answers.map((answer) => answer.tool_call_id),
        )
      )
        problems.push(`messages[${at}]: tool_calls not answered by the tool messages right after it`);
    }
    if (message.role === 'tool') {
      let owner = at - 1;
      while (owner >= 0 && messages[owner].role === 'tool') owner--;
      if (!messages[owner]?.tool_calls?.some((call: Json) => call.id === message.tool_call_id)) problems.push(`messages[${at}]: a tool message with no call`);
    }
  });
  return problems;
}

function responsesProblems(request: Json): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  const answered = new Set<string>();
  request.input.forEach((item: Json, at: number) => {
    if (item.type === 'function_call') open.add(item.call_id);
    else if (item.type === 'function_call_output') {
      if (!open.delete(item.call_id)) problems.push(`input[${at}]: an output with no call before it`);
      if (answered.has(item.call_id)) problems.push(`input[${at}]: a second output for ${item.call_id}`);
      answered.add(item.call_id);
    } else if (open.size > 0) problems.push(`input[${at}]: a message while calls ${[...open].join(', ')} wait for output`);
  });
  if (open.size > 0) problems.push(`calls with no output: ${[...open].join(', ')}`);
  return problems;
}

/** Anthropic and Gemini: turns alternate from a user turn, and a turn's calls are answered by the next turn's leading results. */
function alternatingProblems(
  turns: Json[],
  userRole: string,
  calls: (turn: Json) => string[],
  results: (turn: Json) => string[],
  leading: (turn: Json) => boolean[],
): string[] {
  const problems: string[] = [];
  if (turns[0]?.role !== userRole) problems.push('the first turn is not a user turn');
  turns.forEach((turn, at) => {
    if (at > 0 && turns[at - 1].role === turn.role) problems.push(`turn ${at}: two ${turn.role} turns in a row`);
    const answered = results(turn);
    const asked = at > 0 ? calls(turns[at - 1]) : [];
    if (!sameIds(asked, answered)) problems.push(`turn ${at}: results ${answered.join(', ')} do not answer the calls ${asked.join(', ')} before them`);
    const isResult = leading(turn);
    if (isResult.some((result, index) => result && index > 0 && !isResult[index - 1])) problems.push(`turn ${at}: a result after other content`);
  });
  const last = turns.at(-1);
  if (last && calls(last).length > 0) problems.push('the last turn asks calls nobody answers');
  return problems;
}

function anthropicProblems(request: Json): string[] {
  const blocks = (message: Json): Json[] => (typeof message.content === 'string' ? [] : message.content);
  return alternatingProblems(
    request.messages,
    'user',
    (message) => blocks(message).flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])),
    (message) => blocks(message).flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : [])),
    (message) => blocks(message).map((block) => block.type === 'tool_result'),
  );
}

function geminiProblems(request: Json): string[] {
  return alternatingProblems(
    request.contents,
    'user',
    (content) => content.parts.flatMap((part: Json) => (part.functionCall ? [part.functionCall.id] : [])),
    (content) => content.parts.flatMap((part: Json) => (part.functionResponse ? [part.functionResponse.id] : [])),
    (content) => content.parts.map((part: Json) => part.functionResponse !== undefined),
  );
}

const rules: Record<ContextWindowFormat, (request: Json) => string[]> = {
  'openai-chat': chatProblems,
  'openai-responses': responsesProblems,
  anthropic: anthropicProblems,
  gemini: geminiProblems,
};

/** Everything the provider would refuse in `request`; empty when it takes it. */
export function providerProblems(format: ContextWindowFormat, request: unknown): string[] {
  const validate = validators[format];
  const schemaProblems = validate(request) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  return schemaProblems.length > 0 ? schemaProblems : rules[format](request);
}
