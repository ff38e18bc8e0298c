/**
 * Every log line of a request carries its request id, route and key id (never the key itself).
 */
import type middy from '@middy/core';
import { enterLogContext } from '../../platform/logger';
import type { ApiEvent, ApiResult } from '../http';
import { keyIdOf } from './usage-quota';

export function logContext(): middy.MiddlewareObj<ApiEvent, ApiResult> {
  // Synchronous up to enterWith: the fields must be set in the invocation's own async context.
  const logContextBefore: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    const { requestContext, resource } = request.event;
    const keyId = keyIdOf(request.event);
    enterLogContext({
      requestId: requestContext?.requestId ?? request.context?.awsRequestId,
      route: resource,
      ...(keyId ? { keyId } : {}),
    });
  };
  return { before: logContextBefore };
}
