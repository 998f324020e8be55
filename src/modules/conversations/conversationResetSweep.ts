// The reset sweep (Hermes' expiry watcher): ends sessions their policy expired ahead of the next message, so the
// lifecycle event stream tells a gateway in time to flush memories. The index nominates; each stream decides.
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../clock.js';
import type { LedgerConfig } from '../../config/config.js';
import { quoteIdentifier } from '../../database/migrate.js';
import type { ResetPolicy } from '../../events/conversation/resetPolicy.js';
import { CLOCK } from '../../clock.js';
import { CONFIG } from '../../config/config.js';
import { LOGGER } from '../../logging/logger.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import type { Logger } from '../../logging/logger.js';
import { BackgroundLoop } from '../backgroundLoop.js';
import { ExpireConversationCommand } from './commands/expireConversation.js';
import { resetThreshold } from './resetPolicy/resetThreshold.js';

/** Conversations one sweep looks at per policy group, oldest activity first; the next sweep takes the rest. */
const CANDIDATES_PER_GROUP = 500;

export interface ResetSweepSummary {
  candidates: number;
  /** `<tenant>~<key>` for a tenant's conversations, as their stream names hold them. */
  expired: string[];
  failed: number;
}

interface Candidate {
  tenant: string;
  session_key: string;
}

@Injectable()
export class ConversationResetSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: Logger;
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.logger = logger.child({ component: 'reset-sweep' });
    this.loop = new BackgroundLoop(
      {
        intervalMs: config.sessions.resetSweepIntervalMs,
        onError: (error) => this.logger.error({ err: error }, 'reset sweep failed; the next one retries'),
      },
      () => this.sweep(),
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** One sweep now; tests call this with a ManualClock instead of waiting for the interval. Sweeps of an instance run one at a time. */
  sweep(): Promise<ResetSweepSummary> {
    return this.loop.serially(() => this.sweepOnce());
  }

  private async sweepOnce(): Promise<ResetSweepSummary> {
    const summary: ResetSweepSummary = { candidates: 0, expired: [], failed: 0 };
    const candidates = await this.candidates(this.clock.now());
    summary.candidates = candidates.length;
    for (const { tenant, session_key: sessionKey } of candidates) {
      if (this.loop.stopped) break;
      try {
        const result = await this.commands.execute(new ExpireConversationCommand(sessionKey, { actor: 'reset-sweep', ...(tenant ? { tenant } : {}) }));
        if (result.expiredSessionId !== null) summary.expired.push(tenant ? `${tenant}~${sessionKey}` : sessionKey);
      } catch (error) {
        summary.failed += 1;
        this.logger.warn({ err: error, sessionKey, tenant }, 'reset sweep could not expire a conversation; the next sweep retries');
      }
    }
    if (summary.expired.length > 0) this.logger.info({ expired: summary.expired.length }, 'reset sweep ended expired sessions');
    return summary;
  }

  /**
   * Conversations whose last activity is before their policy's threshold, one query per policy group: each conversation
   * with a policy of its own, then the server's by platform, by chat type and the default, in the order they apply.
   * Only those still on an active session and not suspended (a suspended one gets a new session at its next message).
   */
  private async candidates(now: Date): Promise<Candidate[]> {
    const schema = quoteIdentifier(this.config.readModelSchema);
    const rules = this.config.sessions.reset;
    const from = `FROM ${schema}.conversation_entries entry
      JOIN ${schema}.session_records record ON record.tenant = entry.tenant AND record.session_id = entry.session_id
      WHERE NOT entry.suspended AND record.status = 'active'`;
    const groups: Array<{ condition: string; params: unknown[]; policy: ResetPolicy }> = [];
    const own: Array<{ policy: string }> = await this.readModels.query(
      `SELECT DISTINCT reset_policy::text AS policy FROM ${schema}.conversation_entries WHERE reset_policy IS NOT NULL`,
    );
    for (const { policy } of own) groups.push({ condition: `entry.reset_policy = $1::jsonb`, params: [policy], policy: JSON.parse(policy) as ResetPolicy });
    const platforms = [...rules.byPlatform.keys()];
    const chatTypes = Object.keys(rules.byType);
    for (const platform of platforms) {
      groups.push({ condition: `entry.reset_policy IS NULL AND entry.platform = $1`, params: [platform], policy: rules.byPlatform.get(platform)! });
    }
    for (const chatType of chatTypes) {
      groups.push({
        condition: `entry.reset_policy IS NULL AND NOT (entry.platform = ANY($1)) AND entry.chat_type = $2`,
        params: [platforms, chatType],
        policy: rules.byType[chatType as keyof typeof rules.byType]!,
      });
    }
    groups.push({
      condition: `entry.reset_policy IS NULL AND NOT (entry.platform = ANY($1)) AND NOT (entry.chat_type = ANY($2))`,
      params: [platforms, chatTypes],
      policy: rules.default,
    });
    const candidates: Candidate[] = [];
    for (const group of groups) {
      const threshold = resetThreshold(group.policy, now, rules.timeZone);
      if (threshold === null) continue;
      const at = group.params.length + 1;
      const rows: Candidate[] = await this.readModels.query(
        `SELECT entry.tenant, entry.session_key ${from} AND ${group.condition} AND entry.updated_at < $${at} ORDER BY entry.updated_at LIMIT ${CANDIDATES_PER_GROUP}`,
        [...group.params, threshold.toISOString()],
      );
      candidates.push(...rows);
    }
    return candidates;
  }
}
