/**
 * Where `npm start` says how to reach it: `<data dir>/endpoint.json` holds the A2A URL and the
 * bearer token it generated, so `npx tiny-harness` finds both with no flags. Readable by its
 * owner only: the token is a credential.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod';

export const ENDPOINT_FILE = 'endpoint.json';

/** `npm start`'s data directory when neither --data-dir nor TINY_HARNESS_DATA_DIR names one. */
export const DEFAULT_DATA_DIR = '.local/data';

export const EndpointSchema = z.strictObject({
  url: z.string().url(),
  /** The generated token; null when the tokens came from TINY_HARNESS_BEARER_TOKENS. */
  token: z.string().nullable(),
  participant: z.string().nullable(),
  pid: z.int(),
  started_at: z.string(),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

export const endpointPath = (dataDir: string) => join(resolve(dataDir), ENDPOINT_FILE);

export const writeEndpoint = (dataDir: string, endpoint: Endpoint): string => {
  const path = endpointPath(dataDir);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(endpoint, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
};

/** The endpoint file, if there is one and it is well formed. */
export const readEndpoint = (dataDir: string): Endpoint | undefined => {
  let text: string;
  try {
    text = readFileSync(endpointPath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    return EndpointSchema.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
};

/** Removes the file if it is still this process's (a newer `npm start` may have replaced it). */
export const removeEndpoint = (dataDir: string, pid: number): void => {
  if (readEndpoint(dataDir)?.pid === pid) rmSync(endpointPath(dataDir), { force: true });
};
