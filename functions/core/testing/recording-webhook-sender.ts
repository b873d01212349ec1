import type { WebhookRequest, WebhookResult, WebhookSender } from '../ports/webhook-sender.js';

/**
 * A `WebhookSender` that calls nothing: it keeps every request, in order, and answers each with
 * what `respond` says (200 unless told otherwise).
 */
export class RecordingWebhookSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  respond: (request: WebhookRequest, index: number) => WebhookResult;

  constructor(respond?: (request: WebhookRequest, index: number) => WebhookResult) {
    this.respond = respond ?? (() => ({ kind: 'status', status: 200 }));
  }

  async post(request: WebhookRequest): Promise<WebhookResult> {
    this.requests.push(request);
    return this.respond(request, this.requests.length - 1);
  }
}
