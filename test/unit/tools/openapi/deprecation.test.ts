/**
 * What a deprecation mark in the route table does to the description (docs/api.md, "Versioning
 * and deprecation"): the operation or parameter says `deprecated: true` with its dates, and the
 * answers declare the `Deprecation` and `Sunset` headers the API then sends, in the form it sends
 * them. Nothing is deprecated in the real description.
 */

import { DEPRECATION_NOTICE_DAYS, deprecationHeaders } from '../../../../shared/http/deprecation';
import { buildOpenApiDocument } from '../../../../tools/openapi/document';
import { DEPRECATED_ROUTES, PARAMETER_DEPRECATION, ROUTE_DEPRECATION } from '../../../fixtures/deprecated-routes';

type Json = Record<string, any>;

const marked = buildOpenApiDocument(DEPRECATED_ROUTES) as Json;
const real = buildOpenApiDocument() as Json;
const deref = (doc: Json, node: Json): Json =>
  node.$ref
    ? (node.$ref as string)
        .slice(2)
        .split('/')
        .reduce((n: Json, part: string) => n[part], doc)
    : node;
const responsesOf = (doc: Json, path: string) =>
  Object.entries(doc.paths[path].get.responses as Json).map(([status, r]) => [status, deref(doc, r as Json)] as const);

describe('a deprecated route in the description', () => {
  const op = marked.paths['/api/v1/wallets'].get;

  it('is `deprecated: true`, and says since when and until when it works; the overview says some are', () => {
    expect(marked.info.description).toContain('The operations and parameters marked below are deprecated.');
    expect(real.info.description).toContain('Nothing is deprecated today.');
    expect(op.deprecated).toBe(true);
    expect(op.description).toContain('**Deprecated** since 2026-12-01');
    expect(op.description).toContain('until its sunset, 2027-06-01');
  });

  it('declares Deprecation and Sunset, required, on every answer, matching what the API sends', () => {
    const sent = deprecationHeaders(ROUTE_DEPRECATION, '/prod/api/v1/wallets', undefined);
    for (const [status, response] of responsesOf(marked, '/api/v1/wallets')) {
      for (const name of ['Deprecation', 'Sunset'] as const) {
        expect([status, name, response.headers[name]?.required]).toEqual([status, name, true]);
        expect(new RegExp(response.headers[name].schema.pattern).test(sent[name])).toBe(true);
      }
    }
  });
});

describe('a deprecated parameter in the description', () => {
  const op = marked.paths['/api/v1/earn'].get;
  const param = (name: string) => op.parameters.map((p: Json) => deref(marked, p)).find((p: Json) => p.name === name);

  it('is `deprecated: true` on that operation only, with its dates; the operation is not', () => {
    expect(op).not.toHaveProperty('deprecated');
    expect(param('min_apy')).toMatchObject({ deprecated: true });
    expect(param('min_apy').description).toContain(`**Deprecated** since ${PARAMETER_DEPRECATION.since.slice(0, 10)}`);
    expect(param('min_tvl')).not.toHaveProperty('deprecated');
    const borrowMinApy = marked.paths['/api/v1/borrow'].get.parameters
      .map((p: Json) => deref(marked, p))
      .find((p: Json) => p.name === 'min_apy');
    expect(borrowMinApy).not.toHaveProperty('deprecated');
  });

  it('declares Deprecation and Sunset as optional: only a request that sends it gets them', () => {
    for (const [status, response] of responsesOf(marked, '/api/v1/earn'))
      expect([status, response.headers.Deprecation?.required, response.headers.Sunset?.required]).toEqual([
        status,
        false,
        false,
      ]);
  });
});

describe('the notice a deprecation gives', () => {
  it(`is at least ${DEPRECATION_NOTICE_DAYS} days: a shorter one does not generate`, () => {
    const short = DEPRECATED_ROUTES.map((route) =>
      route.operationId === 'listWallets'
        ? { ...route, deprecated: { route: { since: ROUTE_DEPRECATION.since, sunset: '2027-05-01T00:00:00.000Z' } } }
        : route,
    );
    expect(() => buildOpenApiDocument(short)).toThrow(
      /\/api\/v1\/wallets: sunset 2027-05-01T00:00:00.000Z is less than 180 days/,
    );
    expect(() => buildOpenApiDocument(DEPRECATED_ROUTES)).not.toThrow();
  });
});

describe('the real description', () => {
  it('deprecates nothing and declares no deprecation header', () => {
    const text = JSON.stringify(real);
    expect(text).not.toContain('"deprecated"');
    expect(text).not.toContain('"Deprecation"');
    expect(text).not.toContain('"Sunset"');
  });

  it('differs from the marked one only where the marks are (a shared parameter that one mark changes is inlined)', () => {
    const resolved = (doc: Json) =>
      Object.fromEntries(
        Object.entries(doc.paths as Json)
          .filter(([path]) => path !== '/api/v1/wallets' && path !== '/api/v1/earn')
          .map(([path, methods]) => [
            path,
            Object.fromEntries(
              Object.entries(methods as Record<string, Json>).map(([method, op]) => [
                method,
                { ...op, parameters: op.parameters?.map((p: Json) => deref(doc, p)) },
              ]),
            ),
          ]),
      );
    expect(resolved(marked)).toEqual(resolved(real));
  });
});
