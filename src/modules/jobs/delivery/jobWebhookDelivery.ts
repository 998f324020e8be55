// Optional webhook: each fire POSTed to JOBS_WEBHOOK_URL, signed, retried with backoff, from a checkpointed subscription.
import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { LedgerConfig } from '../../../config/config.js';
import { quoteIdentifier } from '../../../database/migrate.js';
import type { EventStore, Subscription } from '../../../events/eventStore.js';
import { EVENT_STORE } from '../../../events/eventStore.js';
import { CONFIG } from '../../../config/config.js';
import { LOGGER } from '../../../logging/logger.js';
import { READ_MODELS } from '../../../projections/readModelDatabase.js';
import type { Logger } from '../../../logging/logger.js';
import { AdvisoryLockLease, type ProjectionLease, SoleOwnerLease } from '../../../projections/projectionLease.js';
import { type JobFireMessage, jobFireMessage } from './jobFireMessage.js';
import { SIGNATURE_HEADER, signWebhookBody } from './webhookSignature.js';

const CHECKPOINT = 'jobs-webhook';
export const MAX_DELIVERY_ATTEMPTS = 6;
const FIRST_RETRY_DELAY_MS = 250;
const REQUEST_TIMEOUT_MS = 10_000;

/** The subscription is stopping: leave the checkpoint where it is, the next owner delivers this fire. */
class Stopping extends Error {}
/** Another instance moved the checkpoint: it owns delivery now. */
class CheckpointMoved extends Error {}

/**
 * At least once, by one instance at a time: the owner (an advisory lock on PostgreSQL) delivers each
 * fire and then moves the checkpoint, only from where it last saw it. A crash between the two redelivers
 * that fire, so receivers dedupe by `fireId` (or the X-Ledger-Delivery position). A fire that fails
 * every attempt is logged and passed over, so one bad fire cannot hold back the ones after it.
 */
@Injectable()
export class JobWebhookDelivery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: Logger;
  private readonly checkpoints: string;
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;
  private subscription?: Subscription;
  private lease?: ProjectionLease;

  constructor(
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.logger = logger.child({ component: 'job-webhook' });
    this.checkpoints = `${quoteIdentifier(config.readModelSchema)}.job_webhook_checkpoints`;
  }

  onApplicationBootstrap(): void {
    const webhook = this.config.jobs.webhook;
    if (!webhook) return;
    const { readModels, readModelSchema } = this.config;
    this.lease = readModels.kind === 'postgres' ? new AdvisoryLockLease(readModels.url, `jobs-webhook:${readModelSchema}`) : new SoleOwnerLease();
    this.loop = this.run(webhook);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    await this.subscription?.stop();
    await this.loop;
    await this.lease?.releaseAll();
  }

  private async run(webhook: { url: string; secret: string }): Promise<void> {
    while (this.running) {
      try {
        if (!(await this.lease!.tryAcquire(CHECKPOINT))) {
          await this.sleep(2_000);
          continue;
        }
        let saved = await this.loadCheckpoint();
        let failure: unknown;
        this.subscription = this.store.subscribe(
          async (event) => {
            const message = jobFireMessage(event);
            if (message?.name !== 'job.fired') return;
            try {
              await this.deliver(webhook, message);
              await this.moveCheckpoint(saved, event.position);
              saved = event.position;
            } catch (error) {
              failure = error;
              throw error;
            }
          },
          { fromPosition: saved },
        );
        // Stopped while this subscription was being set up: onModuleDestroy could not see it.
        if (!this.running) await this.subscription.stop();
        await this.subscription.done;
        this.subscription = undefined;
        if (failure && !(failure instanceof Stopping)) this.logger.warn({ err: failure }, 'webhook delivery stopped; restarting from the checkpoint');
        if (this.running) await this.sleep(1_000);
      } catch (error) {
        this.logger.error({ err: error }, 'webhook delivery loop failed; restarting from the checkpoint');
        await this.sleep(2_000);
      }
    }
  }

  private async loadCheckpoint(): Promise<number> {
    // A webhook configured today starts with today's fires, not the whole history.
    const head = await this.store.headPosition();
    await this.readModels.query(`INSERT INTO ${this.checkpoints} (name, position) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [CHECKPOINT, head]);
    const rows: Array<{ position: string | number }> = await this.readModels.query(`SELECT position FROM ${this.checkpoints} WHERE name = $1`, [CHECKPOINT]);
    return Number(rows[0]!.position);
  }

  private async moveCheckpoint(from: number, to: number): Promise<void> {
    await this.readModels.transaction(async (manager) => {
      const rows: Array<{ position: string | number }> = await manager.query(`SELECT position FROM ${this.checkpoints} WHERE name = $1 FOR UPDATE`, [
        CHECKPOINT,
      ]);
      if (Number(rows[0]?.position) !== from) throw new CheckpointMoved('the webhook checkpoint moved under this instance');
      await manager.query(`UPDATE ${this.checkpoints} SET position = $2, updated_at = now() WHERE name = $1`, [CHECKPOINT, to]);
    });
  }

  private async deliver(webhook: { url: string; secret: string }, message: JobFireMessage): Promise<void> {
    const body = JSON.stringify({ type: message.name, ...message.data });
    for (let attempt = 1; ; attempt++) {
      let problem: string;
      try {
        const response = await fetch(webhook.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': 'session-ledger',
            'X-Ledger-Event': message.name,
            'X-Ledger-Delivery': String(message.position),
            [SIGNATURE_HEADER]: signWebhookBody(body, webhook.secret),
          },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) return;
        problem = `HTTP ${response.status}`;
      } catch (error) {
        problem = (error as Error).message;
      }
      if (!this.running) throw new Stopping();
      if (attempt >= MAX_DELIVERY_ATTEMPTS) {
        this.logger.error(
          { position: message.position, fireId: message.data.fireId, jobId: message.data.jobId, attempts: attempt, problem },
          'webhook delivery failed; giving up on this fire',
        );
        return;
      }
      const retryInMs = FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1);
      this.logger.warn({ position: message.position, fireId: message.data.fireId, attempt, problem, retryInMs }, 'webhook delivery failed; retrying');
      await this.sleep(retryInMs);
      if (!this.running) throw new Stopping();
    }
  }

  private get running(): boolean {
    return !this.stopping.signal.aborted;
  }

  /** Waits, or less if the service stops meanwhile. */
  private sleep(ms: number): Promise<void> {
    return delay(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }
}
