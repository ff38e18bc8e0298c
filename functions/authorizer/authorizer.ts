/**
 * The TOKEN authorizer: API Gateway passes the Authorization header; the answer follows API
 * Gateway's conventions, which the gateway responses render in the error envelope:
 * throw 'Unauthorized' → UNAUTHORIZED (401 invalid_api_key); a Deny policy → ACCESS_DENIED
 * (403 subscription_required); any other throw → AUTHORIZER_FAILURE (503, fail closed).
 * An Allow covers the whole API, so one cached decision serves every route.
 * No middy here, and of zod only zod/mini for the key and user items' codecs
 * (shared/accounts/account-items.ts; bundle bytes: docs/performance.md): this function runs
 * before every uncached request. A key or user item that does not decode throws a
 * CorruptDataError, which falls into the catch-all below: a failure (503), logged, never a 401 or
 * an Allow.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import type { KeyLookup } from '../../shared/accounts/key-store';
import { authorizeToken, KeyRejectedError, SubscriptionInactiveError } from '../../shared/domain/authorize';
import type { Clock } from '../../shared/platform/clock';
import { InvalidApiKeyError, SubscriptionRequiredError } from '../../shared/platform/errors';
import { enterLogContext, logger } from '../../shared/platform/logger';

export interface AuthorizerDeps {
  store: KeyLookup;
  clock: Clock;
}

/** `arn:aws:execute-api:region:account:apiId/stage/*\/*` from the method ARN of the request. */
function apiWideResource(methodArn: string): string {
  const match = /^(arn:[^:]+:execute-api:[^:]*:[^:]*:[^/]+\/[^/]+)\//.exec(methodArn);
  if (!match) throw new Error('Unexpected methodArn');
  return `${match[1]}/*/*`;
}

const policy = (effect: 'Allow' | 'Deny', resource: string) => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
});

/** @internal (exported for its tests) */
export async function authorize(
  event: APIGatewayTokenAuthorizerEvent,
  deps: AuthorizerDeps,
): Promise<APIGatewayAuthorizerResult> {
  const now = deps.clock();
  let resource = '';
  try {
    resource = apiWideResource(event.methodArn);
    const { keyId, userId, perMinute, perMonth, premiumUntil } = await authorizeToken(
      deps.store,
      event.authorizationToken,
      now,
    );
    logger.debug('authorizer: allow', { keyId });
    return {
      principalId: keyId,
      policyDocument: policy('Allow', resource),
      // A context holds strings, numbers and booleans only: an open-ended subscription has no premiumUntil.
      context: {
        keyId,
        userId,
        ...(perMinute !== undefined ? { perMinute } : {}),
        ...(perMonth !== undefined ? { perMonth } : {}),
        ...(premiumUntil !== undefined ? { premiumUntil } : {}),
      },
    };
  } catch (error) {
    if (error instanceof InvalidApiKeyError) {
      logger.info('authorizer: unauthorized', { reason: error instanceof KeyRejectedError ? error.reason : 'invalid' });
      throw new Error('Unauthorized');
    }
    if (error instanceof SubscriptionRequiredError) {
      const keyId = error instanceof SubscriptionInactiveError ? error.keyId : 'unknown';
      logger.info('authorizer: deny', {
        keyId,
        reason: error instanceof SubscriptionInactiveError ? error.reason : 'inactive',
      });
      return { principalId: keyId, policyDocument: policy('Deny', resource), context: { keyId } };
    }
    // DynamoDB unreachable, throttled, a malformed key or user item (CorruptDataError, whose
    // message names the attributes at fault, never a value), or a bug: fail closed with a
    // retryable 503. The error is logged by name and message only (redact); the token never is.
    logger.error('authorizer: failure', { error });
    throw new Error('Authorizer failure');
  }
}

export type AuthorizerHandler = (
  event: APIGatewayTokenAuthorizerEvent,
  context?: Pick<Context, 'awsRequestId'>,
) => Promise<APIGatewayAuthorizerResult>;

export function authorizerHandler(deps: AuthorizerDeps): AuthorizerHandler {
  return (event, context) => {
    // Every line of this invocation carries its request id (the key id is added where known).
    enterLogContext(context?.awsRequestId ? { requestId: context.awsRequestId } : {});
    return authorize(event, deps);
  };
}
