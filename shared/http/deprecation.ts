/**
 * What the answers of a deprecated route, or of a request that sends a deprecated parameter, say
 * (docs/api.md, "Versioning and deprecation"): `Deprecation` (RFC 9745: `@` and Unix seconds, a
 * structured-field date), `Sunset` (RFC 8594: an HTTP-date) and a `Link` to the policy with
 * `rel="deprecation"`, after any link already there (a list's next and previous pages).
 */
import { DAY_MS } from '../platform/timestamps';
import { httpDate } from './answers';
import { API_PREFIX, type Deprecation, type Route } from './routes';

/** The least notice a deprecation gives: its sunset comes at least this many days after it (docs/api.md). */
export const DEPRECATION_NOTICE_DAYS = 180;

/** The route table's deprecations that give less notice than the policy promises, by route and name. */
export function shortNotices(routes: readonly Route[]): string[] {
  return routes.flatMap((route) =>
    [
      ...(route.deprecated?.route ? [[route.path, route.deprecated.route] as const] : []),
      ...Object.entries(route.deprecated?.parameters ?? {}).map(([name, d]) => [`${route.path} ${name}`, d] as const),
    ]
      .filter(([, d]) => !(Date.parse(d.sunset) - Date.parse(d.since) >= DEPRECATION_NOTICE_DAYS * DAY_MS))
      .map(([what, d]) => `${what}: sunset ${d.sunset} is less than ${DEPRECATION_NOTICE_DAYS} days after ${d.since}`),
  );
}

/**
 * The deprecation a request meets: its route's, else the one with the earliest sunset among the
 * deprecated query parameters it sends; undefined when it meets none.
 */
export function deprecationOf(route: Route | undefined, parameterNames: Iterable<string>): Deprecation | undefined {
  if (route?.deprecated?.route) return route.deprecated.route;
  const marked = route?.deprecated?.parameters ?? {};
  let earliest: Deprecation | undefined;
  for (const name of parameterNames) {
    const deprecation = Object.hasOwn(marked, name) ? marked[name] : undefined;
    if (deprecation && (!earliest || Date.parse(deprecation.sunset) < Date.parse(earliest.sunset)))
      earliest = deprecation;
  }
  return earliest;
}

/**
 * The policy's address: the docs page (its overview states the policy) on the base path the
 * request came in on (a stage name or a custom-domain mapping kept), as the list links are.
 */
function policyReference(requestPath: string): string {
  const at = requestPath.indexOf(`${API_PREFIX}/`);
  return `${at === -1 ? '' : requestPath.slice(0, at)}/docs`;
}

/** `Deprecation`, `Sunset` and `Link` of an answer, `link` (the answer's own `Link`, if any) kept first. */
export function deprecationHeaders(
  deprecation: Deprecation,
  requestPath: string,
  link: string | undefined,
): Record<'Deprecation' | 'Sunset' | 'Link', string> {
  const policy = `<${policyReference(requestPath)}>; rel="deprecation"; type="text/html"`;
  return {
    Deprecation: `@${Math.floor(Date.parse(deprecation.since) / 1000)}`,
    Sunset: httpDate(deprecation.sunset),
    Link: link ? `${link}, ${policy}` : policy,
  };
}
