// X-Ledger-Signature: sha256=<hex HMAC-SHA256 of the raw request body, keyed with JOBS_WEBHOOK_SECRET>.
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Ledger-Signature';

export function signWebhookBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
