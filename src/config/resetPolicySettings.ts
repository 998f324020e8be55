// A reset policy as configuration and requests give it: Hermes' fields, a missing or null one taking Hermes' default.
import { z } from 'zod';
import { type ResetPolicy, resetModes } from '../events/conversation/resetPolicy.js';
import { chatTypes, type ChatType } from '../events/conversation/sessionSource.js';

export const platformName = z.string().regex(/^[a-z0-9_-]{1,32}$/, 'platform names match ^[a-z0-9_-]{1,32}$');

/** Hermes' SessionResetPolicy defaults: off, and when turned on, a day of inactivity or 04:00. */
export const defaultResetPolicy: ResetPolicy = {
  mode: 'none',
  at_hour: 4,
  idle_minutes: 1440,
  notify: true,
  notify_exclude_platforms: ['api_server', 'webhook'],
  bg_process_max_age_hours: 24,
};

// Hermes reads an explicit YAML null as "the default"; so does this.
const field = <T extends z.ZodType>(schema: T) => schema.nullish();

export const resetPolicySchema = z
  .strictObject({
    mode: field(z.enum(resetModes)),
    at_hour: field(z.number().int('at_hour is a whole hour').min(0).max(23)),
    idle_minutes: field(
      z
        .number()
        .positive('idle_minutes must be above 0')
        .max(60 * 24 * 366 * 10, 'idle_minutes is at most ten years'),
    ),
    notify: field(z.boolean()),
    notify_exclude_platforms: field(z.array(platformName).max(100)),
    bg_process_max_age_hours: field(
      z
        .number()
        .min(0)
        .max(24 * 366 * 10, 'bg_process_max_age_hours is at most ten years'),
    ),
  })
  .transform((given): ResetPolicy => ({
    mode: given.mode ?? defaultResetPolicy.mode,
    at_hour: given.at_hour ?? defaultResetPolicy.at_hour,
    idle_minutes: given.idle_minutes ?? defaultResetPolicy.idle_minutes,
    notify: given.notify ?? defaultResetPolicy.notify,
    notify_exclude_platforms: given.notify_exclude_platforms ?? [...defaultResetPolicy.notify_exclude_platforms],
    bg_process_max_age_hours: given.bg_process_max_age_hours ?? defaultResetPolicy.bg_process_max_age_hours,
  }));

/**
 * Platform → policy, as a Map: a record rebuilt by assignment drops a `__proto__` entry (it sets the prototype), and a
 * plain object answers a lookup of `constructor` with Object's own member. Platforms are names like any other.
 */
export const resetPoliciesByPlatformSchema = z
  .custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'a JSON object: platform → policy')
  .transform((given, context) => {
    const policies = new Map<string, ResetPolicy>();
    // Object.keys lists an own `__proto__` member, as JSON.parse makes it.
    for (const platform of Object.keys(given)) {
      const name = platformName.safeParse(platform);
      const policy = resetPolicySchema.safeParse(given[platform]);
      if (!name.success) context.addIssue({ code: 'custom', path: [platform], message: name.error.issues[0]!.message });
      else if (!policy.success)
        for (const issue of policy.error.issues) context.addIssue({ code: 'custom', path: [platform, ...issue.path], message: issue.message });
      else policies.set(platform, policy.data);
    }
    return policies as ReadonlyMap<string, ResetPolicy>;
  });
export const resetPoliciesByTypeSchema = z.partialRecord(z.enum(chatTypes), resetPolicySchema);

/** The server's policies (SESSION_RESET, SESSION_RESET_BY_PLATFORM, SESSION_RESET_BY_TYPE) and the zone of at_hour. */
export interface ResetRules {
  default: ResetPolicy;
  byPlatform: ReadonlyMap<string, ResetPolicy>;
  byType: Readonly<Partial<Record<ChatType, ResetPolicy>>>;
  timeZone: string;
}

export const noResetRules: ResetRules = { default: defaultResetPolicy, byPlatform: new Map(), byType: {}, timeZone: 'UTC' };
