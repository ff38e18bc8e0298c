/**
 * Charges every authenticated request against its key's budgets. The charge starts in `before`
 * and runs concurrently with the handler's data read; `after` and `onError` wait for it, so a
 * refusal wins over whatever the handler produced (CONTRACT §1 order: quotas before path, query
 * and lookup) and a warm request has one DynamoDB round trip on its critical path. Fails closed: if
 * the counters cannot be reached, the answer is 503.
 */
import type middy from '@middy/core';
import { ApiError, InvalidApiKeyError } from '../errors';
import { toApiError } from './error-envelope';
import { chargeRequest, type KeyLimits, type UsageCharge } from '../domain/quota';
import type { ApiEvent, ApiResult } from '../http';
import { logger } from '../logger';
import type { QuotaStore } from '../repositories/quota-store';

export interface UsageQuotaOptions {
  store: QuotaStore;
  defaults: KeyLimits;
  retryAfterSeconds: number;
  now: () => Date;
}

export interface Caller {
  keyId: string;
  limits: KeyLimits;
}

const authorizerContextOf = (event: ApiEvent) => event.requestContext?.authorizer as Record<string, unknown> | null | undefined;

/** The key id the authorizer put in the request context, if any. */
export function keyIdOf(event: ApiEvent): string | undefined {
  const keyId = authorizerContextOf(event)?.keyId;
  return typeof keyId === 'string' && keyId !== '' ? keyId : undefined;
}

/** The key id and limits the authorizer put in the request context. */
export function callerOf(event: ApiEvent, defaults: KeyLimits): Caller | undefined {
  const keyId = keyIdOf(event);
  if (!keyId) return undefined;
  const context = authorizerContextOf(event);
  const limit = (value: unknown, fallback: number) => (Number(value) > 0 ? Math.floor(Number(value)) : fallback);
  return {
    keyId,
    limits: { perMinute: limit(context?.perMinute, defaults.perMinute), perMonth: limit(context?.perMonth, defaults.perMonth) },
  };
}

const CHARGE = Symbol('usage-charge');
type WithCharge = { [CHARGE]?: Promise<UsageCharge | ApiError> };

/** The usage headers of the request, once its charge is settled (for the response headers). */
export const USAGE_HEADERS = Symbol('usage-headers');
export type WithUsageHeaders = { [USAGE_HEADERS]?: Record<string, string> };

export function usageQuota(options: UsageQuotaOptions): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const usageQuotaBefore: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    const caller = callerOf(request.event, options.defaults);
    if (!caller) throw new InvalidApiKeyError();
    (request.internal as WithCharge)[CHARGE] = chargeRequest(options.store, caller.keyId, caller.limits, options.now()).catch(
      (error: unknown) => {
        // Fail closed: no answer goes out without its charge.
        logger.error('quota charge failed', { keyId: caller.keyId, error });
        return toApiError(error, options.retryAfterSeconds);
      },
    );
  };

  /** Settle the charge: record its headers, and return the error that must replace the answer. */
  async function settle(request: middy.Request<ApiEvent, ApiResult>): Promise<ApiError | undefined> {
    const pending = (request.internal as WithCharge)[CHARGE];
    if (!pending) return undefined;
    const charge = await pending;
    if (charge instanceof ApiError) return charge;
    (request.internal as WithUsageHeaders)[USAGE_HEADERS] = charge.headers;
    return charge.refusal;
  }

  const usageQuotaAfter: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    const refusal = await settle(request);
    if (refusal) throw refusal;
  };

  const usageQuotaOnError: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    const refusal = await settle(request);
    if (refusal) request.error = refusal;
  };

  return { before: usageQuotaBefore, after: usageQuotaAfter, onError: usageQuotaOnError };
}
