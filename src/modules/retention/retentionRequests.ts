// The body of POST /v1/admin/retention: a dry run or not, and any part of the policy to use instead of the configured one.
import { z } from 'zod';
import { MAX_RETENTION_DAYS, retentionDaysByPlatformSchema, retentionDaysSchema } from '../../config/retentionSettings.js';

export const retentionRequestSchema = z.strictObject({
  /** Report what would expire and write nothing. */
  dryRun: z.boolean().default(false),
  /** Days transcript content lives (null: for ever); the configured RETENTION_CONTENT_DAYS when absent. */
  contentDays: retentionDaysSchema.nullable().optional(),
  /**
   * Platform → days or null (for ever), replacing RETENTION_CONTENT_DAYS_BY_PLATFORM when given. Read into a Map, as
   * the setting is: a platform named `__proto__` or `constructor` is a platform like any other.
   */
  contentDaysByPlatform: retentionDaysByPlatformSchema
    .meta({
      type: 'object',
      propertyNames: { type: 'string', pattern: '^[a-z0-9_-]{1,32}$' },
      additionalProperties: { anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_RETENTION_DAYS }, { type: 'null' }] },
    })
    .optional(),
  /** Checkpoints each session keeps (null: all); the configured RETENTION_KEEP_CHECKPOINTS when absent. */
  keepCheckpoints: z.number().int().min(0).max(1_000_000).nullable().optional(),
});

export type RetentionRequest = z.infer<typeof retentionRequestSchema>;
