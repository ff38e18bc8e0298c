/**
 * Charges every authenticated request against its key's budgets. For most requests the charge
 * starts in `before` and runs concurrently with the handler's data read; `after` and `onError` wait
 * for it, so a refusal wins over whatever the handler produced (docs/api.md, "Quotas and headers": quotas before
 * path, query and lookup) and a warm request has one DynamoDB round trip on its critical path. A
 * key this instance expects to be refused (shared/domain/budget-memory.ts) is charged first and
 * read only if allowed, so refused requests cost no data read. Fails closed: if the counters cannot
 * be reached, the answer is 503.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { KeyLimits } from '../../accounts/key-store';
import type { QuotaStore } from '../../accounts/quota-store';
import { BudgetMemory } from '../../domain/budget-memory';
import { chargeRequest, type UsageCharge } from '../../domain/quota';
import { ApiError, InvalidApiKeyError } from '../../platform/errors';
import { logger } from '../../platform/logger';
import type { ApiEvent, ApiResult } from '../http';
import { toApiError } from './error-envelope';

export interface UsageQuotaOptions {
  store: QuotaStore;
  defaults: KeyLimits;
  retryAfterSeconds: number;
  now: () => Date;
  /** What this function instance has seen of each key's budgets (one per instance). */
  memory?: BudgetMemory;
}

export interface Caller {
  keyId: string;
  /** The key's owner, as the authorizer read it (empty from an authorizer that names none). */
  userId: string;
  limits: KeyLimits;
  /** The end of the user's subscription as the authorizer read it (null: no end). */
  premiumUntil: string | null;
}

const authorizerContextOf = (event: ApiEvent): Record<string, unknown> | null | undefined =>
  event.requestContext?.authorizer;

/** The key id the authorizer put in the request context, if any. */
export function keyIdOf(event: ApiEvent): string | undefined {
  const keyId = authorizerContextOf(event)?.keyId;
  return typeof keyId === 'string' && keyId !== '' ? keyId : undefined;
}

/** The key id and limits the authorizer put in the request context. */
function callerOf(event: ApiEvent, defaults: KeyLimits): Caller | undefined {
  const keyId = keyIdOf(event);
  if (!keyId) return undefined;
  const context = authorizerContextOf(event);
  const limit = (value: unknown, fallback: number) => (Number(value) > 0 ? Math.floor(Number(value)) : fallback);
  return {
    keyId,
    userId: typeof context?.userId === 'string' ? context.userId : '',
    limits: {
      perMinute: limit(context?.perMinute, defaults.perMinute),
      perMonth: limit(context?.perMonth, defaults.perMonth),
    },
    // An authorizer context holds no null: an open-ended subscription has no premiumUntil.
    premiumUntil:
      typeof context?.premiumUntil === 'string' && context.premiumUntil !== '' ? context.premiumUntil : null,
  };
}

/** The request's caller and its charge, started in `before`: the charge's settlement, or the error that replaces the answer. */
interface ChargedRequest {
  caller: Caller;
  charge: Promise<UsageCharge | ApiError>;
}

/** What the quota middleware writes on `request.internal`, for itself and for the response headers. */
export type QuotaInternal = {
  /** The request's charge, from `before` to `after` / `onError`. */
  charge?: Promise<UsageCharge | ApiError>;
  /** The usage headers of the request, once its charge is settled (for the response headers). */
  usageHeaders?: Record<string, string>;
};

/**
 * What it adds to the Lambda context, middy's way to hand values to a handler: the charged request,
 * for the handlers that answer with it (chargedRequest).
 */
export type QuotaContext = Context & { charged?: ChargedRequest };

type QuotaMiddleware = middy.MiddlewareObj<ApiEvent, ApiResult, Error, QuotaContext, QuotaInternal>;
type QuotaRequest = middy.Request<ApiEvent, ApiResult, Error, QuotaContext, QuotaInternal>;

/**
 * The caller and the settled charge of the request a route handler serves (the `/usage` answer).
 * Throws the refusal or failure that replaces the answer anyway.
 */
export async function chargedRequest(context: QuotaContext): Promise<{ caller: Caller; charge: UsageCharge }> {
  const charged = context.charged;
  if (!charged) throw new InvalidApiKeyError();
  const charge = await charged.charge;
  if (charge instanceof ApiError) throw charge;
  if (charge.refusal) throw charge.refusal;
  return { caller: charged.caller, charge };
}

export function usageQuota(options: UsageQuotaOptions): QuotaMiddleware {
  const memory = options.memory ?? new BudgetMemory();

  const usageQuotaBefore = async (request: QuotaRequest) => {
    const caller = callerOf(request.event, options.defaults);
    if (!caller) throw new InvalidApiKeyError();
    const now = options.now();
    const plan = memory.plan(caller.keyId, caller.limits, now);
    const charge = chargeRequest(options.store, caller.keyId, caller.limits, now, plan.sameMinute).then(
      (settled) => {
        memory.settle(caller.keyId, settled.usage);
        return settled;
      },
      (error: unknown) => {
        memory.settle(caller.keyId, undefined);
        // Fail closed: no answer goes out without its charge.
        logger.error('quota charge failed', { keyId: caller.keyId, error });
        return toApiError(error, options.retryAfterSeconds);
      },
    );
    request.internal.charge = charge;
    request.context.charged = { caller, charge };
    if (plan.order === 'charge-first') {
      const settled = await charge;
      // Refused (or failed): the handler and its read never run; onError renders the refusal.
      if (settled instanceof ApiError) throw settled;
      if (settled.refusal) throw settled.refusal;
    }
  };

  /** Settle the charge: record its headers, and return the error that must replace the answer. */
  async function settle(request: QuotaRequest): Promise<ApiError | undefined> {
    const pending = request.internal.charge;
    if (!pending) return undefined;
    const charge = await pending;
    if (charge instanceof ApiError) return charge;
    request.internal.usageHeaders = charge.headers;
    return charge.refusal;
  }

  const usageQuotaAfter = async (request: QuotaRequest) => {
    const refusal = await settle(request);
    if (refusal) throw refusal;
  };

  const usageQuotaOnError = async (request: QuotaRequest) => {
    const refusal = await settle(request);
    if (refusal) request.error = refusal;
  };

  return { before: usageQuotaBefore, after: usageQuotaAfter, onError: usageQuotaOnError };
}
