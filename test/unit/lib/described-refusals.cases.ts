/**
 * What API Gateway and the web application firewall answer themselves, as the prod template
 * configures them, is what docs/openapi.json says each operation that can get it answers: the
 * status is documented, the headers it carries and lacks (X-Request-Id, usage, CORS) and its body
 * match (test/helpers/contract.ts, the check every integration answer passes).
 */
import { readFileSync } from 'node:fs';
import { contractProblems, DOCUMENT_PATH } from '../../helpers/contract';
import { type Fixture, synth } from './app-fixture';

type Json = Record<string, any>;

const doc = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Json;
/** A request path of every documented operation: keyed routes and the key-free ones. */
/** Each path of the description with its method (`POST /mcp`), its placeholders filled. */
const PATHS = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
  Object.keys(methods).map(
    (method) => `${method.toUpperCase()} ${path.replace('{slug}', 'binance').replace('{id}', '1042')}`,
  ),
);
const KEY_FREE = new Set(['/openapi.json', '/docs', '/api/v1/status']);

/** Answers the gateway gives before the authorizer (any path) or after it (keyed paths only). */
const AFTER_AUTHORIZER = new Set([
  'UNAUTHORIZED',
  'ACCESS_DENIED',
  'AUTHORIZER_FAILURE',
  'AUTHORIZER_CONFIGURATION_ERROR',
]);
/** Answers for a path that is no route: the generic not-found check covers them. */
const NO_ROUTE = new Set(['MISSING_AUTHENTICATION_TOKEN', 'RESOURCE_NOT_FOUND']);

const problemsOn = (paths: string[], status: number, headers: Record<string, string>, body: unknown) =>
  paths.flatMap((request) => {
    const [method, path] = request.split(' ');
    return contractProblems({ method, path, status, headers, body }).map((problem) => `${path} ${status}: ${problem}`);
  });

describe('refusals before the API, as deployed', () => {
  let prod: Fixture;

  beforeAll(() => {
    prod = synth('prod');
  });

  it('the firewall: its 429 and 400 are described on every operation, key-free ones included', () => {
    const [acl] = Object.values(prod.template.findResources('AWS::WAFv2::WebACL'));
    const blocks = (acl.Properties.Rules as Json[]).filter((rule) => rule.Action?.Block);
    expect(blocks.map((rule) => rule.Action.Block.CustomResponse.ResponseCode).sort()).toEqual([400, 429]);
    for (const rule of blocks) {
      const custom = rule.Action.Block.CustomResponse;
      const body = acl.Properties.CustomResponseBodies[custom.CustomResponseBodyKey];
      // WAF sets Content-Type from the body's type; it has no request id to send.
      const headers = {
        ...Object.fromEntries(custom.ResponseHeaders.map((h: Json) => [h.Name, h.Value])),
        'Content-Type': 'application/json',
      };
      expect(headers).not.toHaveProperty(['X-Request-Id']);
      expect(problemsOn(PATHS, custom.ResponseCode, headers, JSON.parse(body.Content))).toEqual([]);
    }
  });

  it('API Gateway: each gateway response is described on every operation that can get it', () => {
    const responses = Object.values(prod.template.findResources('AWS::ApiGateway::GatewayResponse'));
    expect(responses.length).toBeGreaterThan(8);
    for (const { Properties: p } of responses) {
      if (NO_ROUTE.has(p.ResponseType)) continue;
      const headers = Object.fromEntries(
        Object.entries(p.ResponseParameters as Record<string, string>).map(([name, value]) => [
          name.replace('gatewayresponse.header.', ''),
          value === 'context.requestId' ? 'c6a1f0de-4b7e-4f1a-9d2b-5e8c3a7f0b12' : value.slice(1, -1),
        ]),
      );
      const paths = AFTER_AUTHORIZER.has(p.ResponseType)
        ? PATHS.filter((request) => !KEY_FREE.has(request.split(' ')[1]))
        : PATHS;
      const body = JSON.parse(p.ResponseTemplates['application/json']);
      expect([p.ResponseType, problemsOn(paths, Number(p.StatusCode), headers, body)]).toEqual([p.ResponseType, []]);
    }
  });

  it('API Gateway: the 405 of a method /mcp does not take is what the description says of it', () => {
    const [any] = Object.values(
      prod.template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'ANY' } }),
    );
    const [response] = any.Properties.Integration.IntegrationResponses;
    const headers = Object.fromEntries(
      Object.entries(response.ResponseParameters as Record<string, string>).map(([name, value]) => [
        name.replace('method.response.header.', ''),
        value === 'context.requestId' ? 'c6a1f0de-4b7e-4f1a-9d2b-5e8c3a7f0b12' : value.slice(1, -1),
      ]),
    );
    const body = JSON.parse(response.ResponseTemplates['application/json']);
    expect(problemsOn(['GET /mcp', 'DELETE /mcp'], Number(response.StatusCode), headers, body)).toEqual([]);
  });
});
