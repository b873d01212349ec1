import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { lambdaRemoteRuntime as lambdaRuntime } from '../composition/lambda/remote.js';
import type { LoopRuntime as Runtime } from '../composition/loop-runtime.js';
import { errorFields } from '../core/ports/logger.js';
import { parseRemotePushPath } from '../core/remote/webhook-path.js';
import { receiveRemotePush } from '../service/remote-children.js';
import { bodyOf, header, JSON_CONTENT_TYPE, respond } from './a2a/http.js';
import { isTooLarge } from './body-limit.js';

/** The header a push carries its config's token in (A2A §4.3.3). */
export const NOTIFICATION_TOKEN_HEADER = 'x-a2a-notification-token';

const answer = (statusCode: number, message: string, headers: Record<string, string> = {}) =>
  respond(statusCode, JSON_CONTENT_TYPE, { message }, headers);

const isJsonObject = (text: string): boolean => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
};

/**
 * Our webhook for the children we gave remote agents: `POST /remote-agents/push/<parent>/<link>`
 * with the token generated for that child. The push (a StreamResponse) is taken as word that the
 * remote task changed; the task is read from its agent and the change delivered to the parent.
 * An unknown child and a wrong token get the same 401, so the webhook tells nobody which
 * children exist.
 */
export const createRemotePushHandler = (runtime: () => Runtime) =>
  middy(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const { logger } = runtime();
    const ref = parseRemotePushPath(event.path);
    if (ref === undefined) return answer(404, 'no such webhook');
    if (event.httpMethod !== 'POST') return answer(405, 'POST a StreamResponse', { Allow: 'POST' });
    if (isTooLarge(event)) return answer(413, 'the body is over 1 MiB');
    if (!isJsonObject(bodyOf(event))) return answer(400, 'the body is not a JSON StreamResponse');
    const log = logger.child({ taskId: ref.parentId, linkId: ref.linkId });
    try {
      const receipt = await receiveRemotePush(
        runtime(),
        ref,
        header(event, NOTIFICATION_TOKEN_HEADER)
      );
      log.info('remote push', { receipt });
      if (receipt === 'unauthorized') return answer(401, 'unknown child or wrong token');
      if (receipt === 'unavailable') {
        return answer(503, 'the task could not be read from its agent', { 'Retry-After': '5' });
      }
      return answer(200, 'received');
    } catch (error) {
      log.error('remote push failed', errorFields(error));
      return answer(500, 'the push could not be taken');
    }
  });

export const handler = createRemotePushHandler(lambdaRuntime);
