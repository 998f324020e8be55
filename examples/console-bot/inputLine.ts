// One line of the console: `<chat>: <text>` (a chat is any name without ':'). Commands: /new, /stop.

export type InputLine = { chat: string; kind: 'message'; text: string } | { chat: string; kind: 'new' } | { chat: string; kind: 'stop' };

export function parseInputLine(line: string): InputLine | null {
  const match = /^\s*([^:\s][^:]*?)\s*:\s?(.*)$/.exec(line);
  if (!match) return null;
  const [, chat, text] = match as unknown as [string, string, string];
  if (text.trim() === '/new') return { chat, kind: 'new' };
  if (text.trim() === '/stop') return { chat, kind: 'stop' };
  return text.trim() === '' ? null : { chat, kind: 'message', text };
}
