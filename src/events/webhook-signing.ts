/**
 * Standard Webhooks signatures (contract §14.2, https://www.standardwebhooks.com): secrets are `whsec_`
 * and base64 of 32 random bytes; a delivery is signed over `<webhook-id>.<webhook-timestamp>.<body>`
 * by the `standardwebhooks` package itself, so receivers' libraries verify it as they verify anyone's.
 * During the 24 h after a rotation the previous secret signs too: two space-separated signatures.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';

/** How long the secret before a rotation still signs. */
export const PREVIOUS_SECRET_HOURS = 24;

export const newWebhookSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** The `webhook-*` headers of one attempt at `at`, signed by each secret given (the current one first). */
export function signedHeaders(
  eventId: string,
  at: Date,
  body: string,
  secrets: string[],
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
