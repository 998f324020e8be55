// The retention policy as configuration gives it (RETENTION_*): how long transcript content lives, per platform, and how many checkpoints a session keeps.
import { z } from 'zod';
import { platformName } from './resetPolicySettings.js';

export const MAX_RETENTION_DAYS = 36_500;

export const retentionDaysSchema = z.number().int('days are whole days').min(1).max(MAX_RETENTION_DAYS);

/**
 * Platform → days, or null for "kept for ever" (overriding the default), as a Map: a record rebuilt by assignment
 * drops a `__proto__` entry and answers `constructor` with Object's own member. Platforms are names like any other.
 */
export const retentionDaysByPlatformSchema = z
  .custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'a JSON object: platform → days or null')
  .transform((given, context) => {
    const days = new Map<string, number | null>();
    // Object.keys lists an own `__proto__` member, as JSON.parse makes it.
    for (const platform of Object.keys(given)) {
      const name = platformName.safeParse(platform);
      const value = retentionDaysSchema.nullable().safeParse(given[platform]);
      if (!name.success) context.addIssue({ code: 'custom', path: [platform], message: name.error.issues[0]!.message });
      else if (!value.success) context.addIssue({ code: 'custom', path: [platform], message: value.error.issues[0]!.message });
      else days.set(platform, value.data);
    }
    return days as ReadonlyMap<string, number | null>;
  });

/** What expires: content older than its platform's days (the default's where the platform has none), checkpoints beyond the newest `keepCheckpoints`. */
export interface RetentionPolicy {
  /** null: content is kept for ever, except on platforms given days of their own. */
  contentDays: number | null;
  contentDaysByPlatform: ReadonlyMap<string, number | null>;
  /** null: every checkpoint is kept. */
  keepCheckpoints: number | null;
}

export interface RetentionSettings extends RetentionPolicy {
  /** How often each instance applies the policy (0: only POST /v1/admin/retention applies it). */
  intervalMinutes: number;
}

/** Whether the policy expires anything at all. */
export function retentionPolicyIsEmpty(policy: RetentionPolicy): boolean {
  return policy.contentDays === null && ![...policy.contentDaysByPlatform.values()].some((days) => days !== null) && policy.keepCheckpoints === null;
}

/** The days a platform's content lives, null for ever. */
export function contentDaysFor(policy: RetentionPolicy, platform: string): number | null {
  return policy.contentDaysByPlatform.has(platform) ? policy.contentDaysByPlatform.get(platform)! : policy.contentDays;
}
