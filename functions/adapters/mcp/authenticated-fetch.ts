import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Credentials } from '../remote/credentials.js';

/**
 * The fetch an MCP client's transport sends with: every request carries the server's credentials
 * (a bearer token, or an OAuth 2.0 access token fetched and renewed by `credentials`). A 401 drops
 * what it showed to be stale (an expired access token, a rotated secret) and the request is sent
 * once more with fresh credentials: the server refused it before running anything.
 */
export const authenticatedFetch =
  (credentials: Credentials, base: typeof fetch = fetch): FetchLike =>
  async (url, init) => {
    const send = async () => {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(await credentials.headers())) {
        headers.set(name, value);
      }
      return base(url, { ...init, headers });
    };
    const response = await send();
    if (response.status !== 401) return response;
    await response.body?.cancel();
    credentials.invalidate();
    return send();
  };
