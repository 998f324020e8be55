// The erase request: a session key, and the tenant whose conversation it is when not the default one.
import { z } from 'zod';
import { isTenantName, TENANT_RULE } from '../../config/apiTokens.js';

export const eraseRequestSchema = z.strictObject({
  // Any key a conversation may be stored under, including one with a control character from an id a resolve took
  // before ids were refused with them (a key route refuses such a key in its URL; this body is how it is erased).
  sessionKey: z.string().min(1).max(2048),
  tenant: z.string().refine(isTenantName, `a tenant is ${TENANT_RULE}`).optional(),
});

export type EraseRequest = z.infer<typeof eraseRequestSchema>;
