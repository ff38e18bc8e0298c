/**
 * The one definition of a well-formed `Authorization` value (docs/adr/0004-api-keys.md): the
 * scheme word `Bearer` in any case, one or more spaces, a key of 32–128 characters of
 * [A-Za-z0-9_-]; spaces or tabs around the whole are ignored. The authorizer parses with it, API
 * Gateway checks it before invoking the authorizer (the TOKEN authorizer's identity validation
 * expression) and the local gateway does the same, so all three refuse exactly the same values.
 *
 * Written without flags, lookarounds or classes such as \s, so that JavaScript and API Gateway's
 * (Java) regular expressions read it alike.
 */

import { API_KEY_CHARS } from './account-rules';

/** The identity validation expression; its one group is the key. */
export const BEARER_EXPRESSION = `^[ \\t]*[Bb][Ee][Aa][Rr][Ee][Rr] +(${API_KEY_CHARS})[ \\t]*$`;

const BEARER = new RegExp(BEARER_EXPRESSION);

/** The key of an Authorization value, or undefined when the value is not a well-formed Bearer key. */
export function bearerKey(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}
