// A console gateway on the Session Ledger: resolve each message, one turn at a time per chat, queue what arrives meanwhile.
import { randomUUID } from 'node:crypto';
import { LedgerApiError, type LedgerClient, LedgerNetworkError, type SessionSource } from '../../src/client/index.js';
import type { Agent } from './echoAgent.js';
import type { InputLine } from './inputLine.js';

export const PLATFORM = 'console';

export type Output = (line: Record<string, unknown>) => void;

interface Work {
  id: string;
  text: string;
}

/**
 * Everything that matters lives in the ledger: which session a chat is in, its transcript, and the messages
 * waiting for the agent. So the bot can die at any moment and a new one carries on, and the ledger can restart
 * under it (the client retries refused connections until it is back).
 */
export class ConsoleBot {
  /** Chats whose agent is working; what arrives for them meanwhile goes to the ledger's queue. */
  private readonly working = new Map<string, Promise<void>>();
  /** Per chat, the intake of lines in the order they came. */
  private readonly intake = new Map<string, Promise<void>>();
  /** The ledger's session key of each chat, as resolve answered it. */
  private readonly keys = new Map<string, string>();
  private stopping = false;

  constructor(
    private readonly ledger: LedgerClient,
    private readonly agent: Agent,
    private readonly gatewayId: string,
    private readonly out: Output,
  ) {}

  static source(chat: string): SessionSource {
    return { platform: PLATFORM, chatType: 'dm', chatId: chat, userName: chat };
  }

  static chatOf(sessionKey: string): string | null {
    const prefix = `:${PLATFORM}:dm:`;
    const at = sessionKey.indexOf(prefix);
    return at < 0 ? null : decodeURIComponent(sessionKey.slice(at + prefix.length));
  }

  /** Restart recovery: tell the ledger we are up (it marks what a crash interrupted), then work off what waits. */
  async start(bootId: string): Promise<void> {
    // This bot answers what a crash cut short itself (below), so the ledger queues no continuation of its own.
    const started = await this.ledger.gatewayStarted(this.gatewayId, { bootId, autoContinue: false });
    const keys = new Set<string>();
    for (const resume of started.resume) {
      this.out({ event: 'resume', chat: ConsoleBot.chatOf(resume.sessionKey), sessionKey: resume.sessionKey, reason: resume.reason });
      keys.add(resume.sessionKey);
    }
    // The sessions index is a read model; the client sends the position gatewayStarted wrote, so it is current.
    for (let cursor: string | undefined; ;) {
      const page = await this.ledger.listSessions({ platform: PLATFORM, limit: 100, cursor });
      for (const entry of page.sessions) keys.add(entry.sessionKey);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    for (const key of keys) {
      const chat = ConsoleBot.chatOf(key);
      if (chat === null) continue;
      this.keys.set(chat, key);
      if ((await this.ledger.getQueue(key)).depth > 0) this.startWorker(chat, key, null);
    }
  }

  receive(line: InputLine): Promise<void> {
    if (this.stopping) return Promise.resolve();
    const previous = this.intake.get(line.chat) ?? Promise.resolve();
    const next = previous.then(() => this.take(line)).catch((error: unknown) => this.fail(line.chat, error));
    this.intake.set(line.chat, next);
    return next;
  }

  private async take(line: InputLine): Promise<void> {
    const resolved = await this.ledger.resolveSession({ source: ConsoleBot.source(line.chat), gatewayId: this.gatewayId });
    this.keys.set(line.chat, resolved.sessionKey);
    if (line.kind === 'new') {
      const reset = await this.ledger.resetConversation(resolved.sessionKey);
      this.out({ event: 'reset', chat: line.chat, sessionId: reset.sessionId });
      return;
    }
    if (line.kind === 'stop') {
      await this.ledger.suspendConversation(resolved.sessionKey, { reason: 'stop' });
      this.out({ event: 'stopped', chat: line.chat });
      return;
    }
    const work: Work = { id: randomUUID(), text: line.text };
    if (!this.working.has(line.chat)) {
      this.startWorker(line.chat, resolved.sessionKey, work);
      return;
    }
    // Busy: the message waits in the ledger, where neither a bot crash nor a ledger restart loses it.
    const queued = await this.enqueue(resolved.sessionKey, work, line.chat);
    this.out({ event: 'queued', chat: line.chat, messageId: queued.messageId, depth: queued.depth, position: queued.position });
    // The worker may have found the queue empty and stopped while we were queueing.
    if (!this.working.has(line.chat)) this.startWorker(line.chat, resolved.sessionKey, null);
  }

  private startWorker(chat: string, sessionKey: string, first: Work | null): void {
    const worker = this.work(chat, sessionKey, first)
      .catch((error: unknown) => this.fail(chat, error))
      .finally(() => this.working.delete(chat));
    this.working.set(chat, worker);
  }

  /** One turn at a time: the message at hand, then the queue until it is empty. */
  private async work(chat: string, sessionKey: string, first: Work | null): Promise<void> {
    let next = first;
    for (;;) {
      if (next) await this.turn(chat, next);
      if (this.stopping) return;
      next = await this.dequeue(chat, sessionKey);
      if (!next) return;
    }
  }

  private async dequeue(chat: string, sessionKey: string): Promise<Work | null> {
    try {
      const dequeued = await this.ledger.nextQueued(sessionKey);
      return dequeued && { id: dequeued.message.id, text: dequeued.message.text ?? '' };
    } catch (error) {
      if (!(error instanceof LedgerNetworkError && error.maybeApplied)) throw error;
      // The answer was lost, maybe not the dequeue: the conversation's log says which message was taken last.
      const taken = await this.lastDequeued(sessionKey);
      if (
        taken &&
        (await this.findTurn((await this.ledger.resolveSession({ source: ConsoleBot.source(chat), gatewayId: this.gatewayId })).sessionId, taken.id)) === null
      )
        return taken;
      return this.dequeue(chat, sessionKey);
    }
  }

  private async lastDequeued(sessionKey: string): Promise<Work | null> {
    const { revision } = await this.ledger.getConversation(sessionKey);
    const { events } = await this.ledger.conversationEvents(sessionKey, { fromRevision: Math.max(0, revision - 99), limit: 100 });
    const dequeued = events.filter((event) => event.type === 'MessageDequeued').at(-1);
    if (!dequeued) return null;
    const id = dequeued.data.messageId as string;
    const queued = events
      .filter((event) => (event.type === 'MessageQueued' || event.type === 'QueuedMessageReplaced') && (event.data.message as { id?: string }).id === id)
      .at(-1);
    return queued ? { id, text: (queued.data.message as { text?: string | null }).text ?? '' } : null;
  }

  private async turn(chat: string, work: Work): Promise<void> {
    // Resolve again: a /new or a suspension may have moved the chat to another session meanwhile.
    const { sessionId } = await this.ledger.resolveSession({ source: ConsoleBot.source(chat), gatewayId: this.gatewayId });
    const session = await this.ledger.getSession(sessionId);
    const reply = await this.agent.reply(work.text, { sessionId, turnIndex: session.turnCount + 1 });
    const request = {
      messages: [
        { role: 'user' as const, content: work.text, metadata: { clientMessageId: work.id } },
        { role: 'assistant' as const, content: reply },
      ],
    };
    let turnIndex: number;
    try {
      turnIndex = (await this.ledger.recordTurn(sessionId, request)).turnIndex;
    } catch (error) {
      // The answer was lost, not necessarily the turn: look before recording it twice.
      if (!(error instanceof LedgerNetworkError && error.maybeApplied)) throw error;
      const recorded = await this.findTurn(sessionId, work.id);
      turnIndex = recorded ?? (await this.ledger.recordTurn(sessionId, request)).turnIndex;
    }
    this.out({ event: 'reply', chat, sessionId, turnIndex, text: reply });
  }

  private async findTurn(sessionId: string, clientMessageId: string): Promise<number | null> {
    const { messages } = await this.ledger.getTranscript(sessionId);
    return messages.find((message) => message.metadata?.clientMessageId === clientMessageId)?.turnIndex ?? null;
  }

  private async enqueue(sessionKey: string, work: Work, chat: string) {
    const request = { message: { id: work.id, text: work.text, sender: { name: chat } }, mode: 'queue' as const };
    try {
      return await this.ledger.enqueue(sessionKey, request);
    } catch (error) {
      if (!(error instanceof LedgerNetworkError && error.maybeApplied)) throw error;
      const queue = await this.ledger.getQueue(sessionKey);
      const waiting = [queue.slot, ...queue.overflow].some((message) => message?.id === work.id);
      return waiting ? { messageId: work.id, depth: queue.depth, position: queue.position } : this.ledger.enqueue(sessionKey, request);
    }
  }

  private fail(chat: string, error: unknown): void {
    const detail = error instanceof LedgerApiError ? { code: error.code, requestId: error.requestId } : {};
    this.out({ event: 'error', chat, message: error instanceof Error ? error.message : String(error), ...detail });
  }

  /** Chats whose agent is mid-turn now. */
  get activeChats(): string[] {
    return [...this.working.keys()];
  }

  /** Resolves once every chat's intake is done and every worker has stopped (or after `deadlineMs`); answers the chats still busy. */
  async drain(deadlineMs: number): Promise<string[]> {
    const idle = (async () => {
      await Promise.all([...this.intake.values()]);
      while (this.working.size > 0) await Promise.all([...this.working.values()]);
    })();
    const deadline = Number.isFinite(deadlineMs) ? [new Promise((resolve) => setTimeout(resolve, deadlineMs).unref())] : [];
    await Promise.race([idle, ...deadline]);
    return this.activeChats;
  }

  /** Graceful stop: mark the chats mid-turn for resume, let them finish their turn, leave the queue for the next bot. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping = true;
    const keysOf = (chats: string[]) => chats.flatMap((chat) => this.keys.get(chat) ?? []);
    await this.ledger.gatewayStopping(this.gatewayId, { activeKeys: keysOf(this.activeChats), mode: 'shutdown' });
    const stillActive = await this.drain(deadlineMs);
    await this.ledger.gatewayStopped(this.gatewayId, { drainTimedOut: keysOf(stillActive) });
  }
}
