// GET /v1/search: the query string's schema, validated at the edge.
import { z } from 'zod';
import { storableTimestamp } from '../../http/storableTimestamp.js';

const flag = z
  .enum(['true', 'false'])
  .optional()
  .transform((value) => value === 'true');

export const searchRequest = z
  .object({
    /** Words, "quoted phrases", -excluded words, OR: what websearch_to_tsquery reads. */
    q: z.string().trim().min(1).max(500),
    sessionKey: z.string().min(1).max(2048).optional(),
    sessionId: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,128}$/)
      .optional(),
    platform: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/)
      .optional(),
    /** A transcript message's role, or an item's (its `role`, content role or `type`: `function_call`, `model`…). */
    role: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
      .optional(),
    /** `transcript`: only transcript messages; `items`: only items of item histories. Both when absent. */
    source: z.enum(['transcript', 'items']).optional(),
    since: storableTimestamp.optional(),
    until: storableTimestamp.optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(200).optional(),
    /** `session`: the best sessions, each with its best hits, instead of hits one by one. */
    groupBy: z.enum(['session']).optional(),
    hitsPerSession: z.coerce.number().int().min(1).max(10).default(3),
    /** Also messages rewound or rewritten away, and messages of destroyed sessions. */
    includeDeleted: flag,
    /** Also messages of timelines a rollback left. */
    includeRolledBack: flag,
    minPosition: z.string().optional(),
  })
  .strict();

export type SearchRequest = z.infer<typeof searchRequest>;
