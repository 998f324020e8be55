// How values read in the console: times, counts, costs, and a message's content as plain text.

/** `2026-03-01 09:58:00Z`: unambiguous across operators' time zones. */
export function formatTime(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

export function formatCount(value) {
  return typeof value === 'number' ? value.toLocaleString('en-US') : '—';
}

export function formatCost(value) {
  return typeof value === 'number' ? `$${value.toFixed(value > 0 && value < 0.01 ? 4 : 2)}` : '—';
}

/** Text parts as they read; anything else (tool calls, images, unknown shapes) as JSON. Never markup. */
export function messageText(content) {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === 'object' && part.type === 'text' && typeof part.text === 'string' ? part.text : JSON.stringify(part)))
      .join('\n');
  }
  return JSON.stringify(content, null, 2);
}

/** A tool call as it reads: `name(arguments)`, whichever shape the runtime used (OpenAI function calls, or flat). */
export function toolCallText(call) {
  if (!call || typeof call !== 'object') return JSON.stringify(call);
  const fn = call.function && typeof call.function === 'object' ? call.function : call;
  const name = typeof fn.name === 'string' ? fn.name : typeof call.name === 'string' ? call.name : 'tool';
  const args = fn.arguments ?? call.arguments ?? call.input ?? call.args;
  let argsText = '';
  if (typeof args === 'string') {
    try {
      argsText = JSON.stringify(JSON.parse(args));
    } catch {
      argsText = args;
    }
  } else if (args !== undefined) {
    argsText = JSON.stringify(args);
  }
  return `${name}(${argsText})`;
}

export function formatJson(value) {
  return JSON.stringify(value, null, 2);
}
