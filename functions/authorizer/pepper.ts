/**
 * The key-hash pepper of the deployed authorizer: an SSM SecureString read once per function
 * instance, at its first invocation (a CommonJS bundle has no top-level await), decrypted by SSM
 * with the parameter's KMS key. The function's environment carries the parameter's name only, so
 * `lambda:GetFunctionConfiguration` reveals no secret (docs/security.md). A failed read is not
 * kept: that invocation fails closed (503) and the next one reads again.
 */
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { KeyLookup } from '../../shared/accounts/key-store';

type PepperSource = () => Promise<string>;

/** `read` once, the pending read shared by concurrent callers; a failure is forgotten, so the next call reads again. */
function onceRead<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** The decrypted value of the SecureString `name`; an empty or absent value is an error, never "no pepper". */
export function ssmPepper(client: Pick<SSMClient, 'send'>, name: string): PepperSource {
  return async () => {
    const out = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    const value = out.Parameter?.Value;
    if (!value) throw new Error(`key pepper: parameter ${name} has no value`);
    return value;
  };
}

/** A client for the function's own region, with the SDK's defaults (credentials from the environment in Lambda). */
export const createSsmClient = () => new SSMClient({});

/** A key lookup whose store is built with the pepper once `pepper` first answers, then kept for the instance. */
export function pepperedKeyLookup(pepper: PepperSource, build: (pepper: string) => KeyLookup): KeyLookup {
  const store = onceRead(async () => build(await pepper()));
  return {
    findByKey: async (secret) => (await store()).findByKey(secret),
    getUser: async (userId) => (await store()).getUser(userId),
  };
}
