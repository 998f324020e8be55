// What the bot tells its chats about lifecycle events it did not cause: suspensions, resume marks, scheduled job fires.
import type { LedgerClient, LifecycleEvent } from '../../src/client/index.js';
import { ConsoleBot, type Output, PLATFORM } from './consoleBot.js';

const TYPES = ['Suspended', 'ResumeMarked', 'JobFired'];

/** Follows the ledger's event stream until `signal` aborts; reconnects (and resumes) across ledger restarts. */
export async function followLifecycle(ledger: LedgerClient, out: Output, signal: AbortSignal): Promise<void> {
  const events = ledger.events({ types: TYPES }, { signal, onReconnect: (attempt) => out({ event: 'reconnecting', stream: 'lifecycle', attempt }) });
  for await (const event of events) {
    const notice = noticeOf(event);
    if (notice) out(notice);
    if (event.type === 'JobFired' && notice) {
      const { jobId, fireId } = event.data as { jobId: string; fireId: string };
      await ledger.reportRun(jobId, fireId, { status: 'ok' });
    }
  }
}

function noticeOf(event: LifecycleEvent): Record<string, unknown> | null {
  if (event.type === 'JobFired') {
    const task = event.data.task as { deliverTo?: { platform?: string; chatId?: string } | null; prompt?: string | null; skill?: string | null } | undefined;
    if (task?.deliverTo?.platform !== PLATFORM) return null;
    return { event: 'job', chat: task.deliverTo.chatId, jobId: event.data.jobId, text: task.prompt ?? task.skill ?? null, position: event.position };
  }
  const key = /(?:^|~)conversation-(.*)$/.exec(event.streamName)?.[1];
  const chat = key ? ConsoleBot.chatOf(key) : null;
  if (chat === null) return null;
  return { event: 'notice', chat, type: event.type, data: event.data, position: event.position };
}
