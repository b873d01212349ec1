import { type WebhookPolicy, webhookUrlRefusal } from '../core/push/webhook-address.js';
import { A2aError } from './a2a-errors.js';

/**
 * A push-notification URL the agent may call (functions/core/push/webhook-address.ts), parsed;
 * anything else is InvalidParams saying why.
 */
export const checkWebhookUrl = (raw: string, policy: WebhookPolicy): URL => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new A2aError('InvalidParams', 'webhook url refused: not an absolute URL');
  }
  const refusal = webhookUrlRefusal(url, policy);
  if (refusal !== undefined) throw new A2aError('InvalidParams', `webhook url refused: ${refusal}`);
  return url;
};
