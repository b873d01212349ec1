/**
 * One HTTP request to a loopback port over node:http, sending exactly the headers given: fetch
 * replaces a Host header with the URL's, and the Host checks are what these tests try.
 */
import { type IncomingHttpHeaders, request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export const rawRequest = (
  port: number,
  options: { path: string; method?: string; headers?: Record<string, string>; body?: string }
): Promise<RawAnswer> =>
  new Promise((done, fail) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        response.on('end', () =>
          done({ status: response.statusCode ?? 0, headers: response.headers, body })
        );
      }
    );
    sent.on('error', fail);
    sent.end(options.body);
  });
