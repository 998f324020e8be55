// The body of POST /v1/admin/retention: a dry run or not, and any part of the policy to use instead of the configured one.
import { z } from 'zod';
import { platformName } from '../../config/resetPolicySettings.js';
import { retentionDaysSchema } from '../../config/retentionSettings.js';

export const retentionRequestSchema = z.strictObject({
  /** Report what would expire and write nothing. */
  dryRun: z.boolean().default(false),
  /** Days transcript content lives (null: for ever); the configured RETENTION_CONTENT_DAYS when absent. */
  contentDays: retentionDaysSchema.nullable().optional(),
  /** Platform → days or null (for ever), replacing RETENTION_CONTENT_DAYS_BY_PLATFORM when given. */
  contentDaysByPlatform: z.record(platformName, retentionDaysSchema.nullable()).optional(),
  /** Checkpoints each session keeps (null: all); the configured RETENTION_KEEP_CHECKPOINTS when absent. */
  keepCheckpoints: z.number().int().min(0).max(1_000_000).nullable().optional(),
});

export type RetentionRequest = z.infer<typeof retentionRequestSchema>;
