import { promises as dns, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type {
  WebhookRequest,
  WebhookResult,
  WebhookSender,
} from '../../core/ports/webhook-sender.js';
import {
  isAllowedAddress,
  type WebhookPolicy,
  webhookUrlRefusal,
} from '../../core/push/webhook-address.js';

/** Resolves a host name to every address it has (the system resolver by default). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface HttpWebhookSenderOptions {
  policy: WebhookPolicy;
  /** Tests resolve names without DNS. */
  resolve?: Resolve;
}

/** A resolved address the policy refuses: told apart from a network failure by the sender. */
class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
}

/**
 * Resolves the host, refuses it when any of its addresses is not one the agent may call (a name
 * with a private address among its public ones points into someone's network), and hands the
 * socket the addresses it checked: the connection goes to a checked address, so a DNS answer
 * that changes between the check and the connect (rebinding) changes nothing.
 */
const checkedLookup =
  (resolve: Resolve, policy: WebhookPolicy): LookupFunction =>
  (hostname, options, callback) => {
    // The socket may ask for one family, as a number or by name; 0 or none means either.
    const family = { IPv4: 4, IPv6: 6 }[String(options.family)] ?? options.family;
    resolve(hostname).then(
      (resolved) => {
        const wanted = resolved.filter((entry) => !family || entry.family === family);
        const refused = resolved.find((entry) => !isAllowedAddress(entry.address, policy));
        const first = wanted[0];
        if (refused !== undefined || first === undefined) {
          const why = refused === undefined ? 'no usable address' : 'a non-public address';
          callback(new AddressRefusedError(`${hostname} resolves to ${why}`), '', 0);
          return;
        }
        if (options.all) callback(null, wanted);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0)
    );
  };

/**
 * Push notifications over node:http(s) (not fetch: fetch cannot be given a lookup). The URL is
 * checked again by its spelling (the policy may have changed since the config was stored; an IP
 * literal is never looked up, so this is its address check), then every connection goes through
 * `checkedLookup`. No redirect is followed: a 3xx is the webhook's answer. The response body is
 * never read.
 */
export class HttpWebhookSender implements WebhookSender {
  readonly #policy: WebhookPolicy;
  readonly #lookup: LookupFunction;

  constructor(options: HttpWebhookSenderOptions) {
    this.#policy = options.policy;
    this.#lookup = checkedLookup(options.resolve ?? systemResolve, options.policy);
  }

  async post(webhook: WebhookRequest): Promise<WebhookResult> {
    let url: URL;
    try {
      url = new URL(webhook.url);
    } catch {
      return { kind: 'refused', reason: 'webhook url refused: not an absolute URL' };
    }
    const refusal = webhookUrlRefusal(url, this.#policy);
    if (refusal !== undefined)
      return { kind: 'refused', reason: `webhook url refused: ${refusal}` };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<WebhookResult>((resolve) => {
      try {
        const outgoing = send(url, {
          method: 'POST',
          headers: { ...webhook.headers, 'Content-Length': Buffer.byteLength(webhook.body) },
          lookup: this.#lookup,
          // A fresh connection per notification: no pooled socket outlives the address check.
          agent: false,
          signal: AbortSignal.timeout(webhook.timeoutMs),
        });
        outgoing.on('response', (response) => {
          resolve({ kind: 'status', status: response.statusCode ?? 0 });
          response.on('error', () => undefined);
          response.destroy();
        });
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          if (error instanceof AddressRefusedError) {
            resolve({ kind: 'refused', reason: error.message });
          } else if (error.name === 'AbortError') {
            resolve({ kind: 'failed', reason: `no answer within ${webhook.timeoutMs} ms` });
          } else {
            resolve({ kind: 'failed', reason: error.code ?? error.message });
          }
        });
        outgoing.end(webhook.body);
      } catch (error) {
        // A header value Node will not send (a control character): no attempt can succeed.
        resolve({ kind: 'refused', reason: (error as Error).message });
      }
    });
  }
}
