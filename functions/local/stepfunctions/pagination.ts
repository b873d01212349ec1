/**
 * `maxResults`/`nextToken` paging as the Step Functions list operations do it. The token is an
 * opaque offset; a token we did not issue is refused with `InvalidToken`, as the service does.
 */
import { SfnServiceError } from './sfn-errors.js';

export interface PageRequest {
  maxResults?: number;
  nextToken?: string;
}

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

const encode = (offset: number) => Buffer.from(`page:${offset}`).toString('base64url');

const decode = (token: string): number => {
  const match = /^page:(\d+)$/.exec(Buffer.from(token, 'base64url').toString());
  if (!match) throw new SfnServiceError('InvalidToken', `Invalid Token: '${token}'`);
  return Number(match[1]);
};

/**
 * A page of `items`, or of `items` newest first with `reverse` (read from the end: the items are
 * not copied, so the last event of a long history is as cheap to read as the first).
 */
export function paginate<T>(
  items: readonly T[],
  request: PageRequest,
  reverse = false
): { page: T[]; nextToken?: string } {
  const size = request.maxResults ? Math.min(request.maxResults, MAX_PAGE) : DEFAULT_PAGE;
  const offset = request.nextToken ? decode(request.nextToken) : 0;
  const page = reverse
    ? items
        .slice(Math.max(0, items.length - offset - size), Math.max(0, items.length - offset))
        .reverse()
    : items.slice(offset, offset + size);
  const next = offset + size;
  return next < items.length ? { page, nextToken: encode(next) } : { page };
}
