/** One POST of a push notification to a webhook. */
export interface WebhookRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  /** The whole attempt's limit: connecting, sending and the response's status line. */
  timeoutMs: number;
}

/**
 * What one attempt came to:
 * - `status`: the webhook answered with this HTTP status (a redirect is an answer too: it is
 *   never followed);
 * - `refused`: the sender would not call it (the URL or the address it resolves to is not one
 *   the agent may call, or a header value cannot be sent), so no retry can succeed;
 * - `failed`: no answer (DNS, connection, TLS, timeout), which a later attempt may get.
 */
export type WebhookResult =
  | { kind: 'status'; status: number }
  | { kind: 'refused'; reason: string }
  | { kind: 'failed'; reason: string };

/**
 * Sends push notifications. `post` MUST NOT throw: every outcome is a `WebhookResult`. It MUST
 * check the address it connects to (not only the URL's spelling) against the agent's webhook
 * policy, and connect to the address it checked.
 */
export interface WebhookSender {
  post(request: WebhookRequest): Promise<WebhookResult>;
}
