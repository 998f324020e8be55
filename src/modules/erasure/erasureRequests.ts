// The erase request: a session key, and the tenant whose conversation it is when not the default one.
import { z } from 'zod';
import { isTenantName, TENANT_RULE } from '../../config/apiTokens.js';

export const eraseRequestSchema = z.strictObject({
  // The same bounds as a key in a URL (validSessionKey): printable, 1-2048 characters.
  sessionKey: z
    .string()
    .min(1)
    .max(2048)
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'a session key is printable'),
  tenant: z.string().refine(isTenantName, `a tenant is ${TENANT_RULE}`).optional(),
});

export type EraseRequest = z.infer<typeof eraseRequestSchema>;
