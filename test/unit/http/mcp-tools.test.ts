/**
 * The MCP tools (shared/http/mcp-tools.ts) are derived, not written: from the route table's tool
 * declarations and the API description. A route or a filter added to a test table reaches the
 * tools with no change to their code; a call answers the route's handler's answer, within the size
 * a result holds.
 */
import openapiDocument from '../../../docs/openapi.json';
import type { ApiEvent, ApiResult } from '../../../shared/http/http';
import {
  type ApiDescription,
  callTool,
  deriveTools,
  MAX_RESULT_BYTES,
  McpArgumentsError,
} from '../../../shared/http/mcp-tools';
import { ROUTES, type Route } from '../../../shared/http/routes';
import { OFFER_FAMILIES, OFFER_FAMILY } from '../../../shared/model/offer-families';
import { NotFoundError } from '../../../shared/platform/errors';

const description = openapiDocument as ApiDescription;
const carrier = {
  path: '/mcp',
  requestContext: { requestId: 'r1', authorizer: { keyId: 'k' } },
} as unknown as ApiEvent;

/** A description with one more operation (or parameter) than the generated one. */
function describedWith(path: string, method: string, operation: Record<string, unknown>): ApiDescription {
  return {
    ...description,
    paths: { ...description.paths, [path]: { ...description.paths[path], [method]: operation } },
  };
}

describe('deriveTools', () => {
  const tools = deriveTools(ROUTES, description);
  const byName = new Map(tools.map((t) => [t.name, t]));

  it('takes every parameter of every route of a tool, with its description, and chooses among the routes by argument', () => {
    const listOffers = byName.get('list_offers')!;
    expect(listOffers.routes.map((r) => r.route.operationId)).toEqual(
      OFFER_FAMILIES.map((family) => `list${family[0].toUpperCase()}${family.slice(1)}Offers`),
    );
    const parameters = description.components?.parameters ?? {};
    for (const { route } of listOffers.routes)
      for (const raw of (description.paths[route.path].get.parameters ?? []) as { $ref?: string }[]) {
        const parameter = (raw.$ref ? parameters[raw.$ref.split('/').pop()!] : raw) as { name: string; in: string };
        if (parameter.in === 'query') expect(Object.keys(listOffers.inputSchema.properties)).toContain(parameter.name);
      }
    const withAvailable = OFFER_FAMILIES.filter((family) => OFFER_FAMILY[family].fields.flag === 'available');
    expect(listOffers.inputSchema.properties.available.description).toMatch(
      new RegExp(`\\(Only with ${withAvailable.map((family) => `family ${family}`).join(', ')}\\.\\)$`),
    );
    expect(listOffers.inputSchema.properties.limit).toMatchObject({ type: 'integer', maximum: 200 });
    expect(byName.get('get_platform')!.inputSchema.required).toEqual(['type', 'slug']);
    expect(byName.get('search')!.inputSchema.required).toEqual(['q']);
  });

  it('describes a tool by its routes’ summaries', () => {
    expect(byName.get('get_offer')!.description).toBe(
      `${OFFER_FAMILIES.map((family) => `Get one ${family} offer`).join('; ')}.`,
    );
    expect(byName.get('get_currency')!.description).toMatch(/^Get one currency\. .*counts/);
  });

  it('sees a route added to the table, with its parameters and summary', () => {
    const staking: Route = {
      method: 'GET',
      path: '/api/v1/staking',
      fn: 'offers',
      operationId: 'listStakingOffers',
      kind: 'list',
      transfer: 'buffer',
      tool: { name: 'list_staking' },
    };
    const withStaking = describedWith('/api/v1/staking', 'get', {
      summary: 'List staking offers',
      parameters: [
        { name: 'validator', in: 'query', required: true, description: 'A validator.', schema: { type: 'string' } },
      ],
    });
    const tool = deriveTools([...ROUTES, staking], withStaking).find((t) => t.name === 'list_staking');
    expect(tool).toMatchObject({
      description: 'List staking offers.',
      inputSchema: {
        type: 'object',
        properties: { validator: { type: 'string', description: 'A validator.' } },
        required: ['validator'],
        additionalProperties: false,
      },
    });
  });

  it('sees a filter added to a route', () => {
    const earn = description.paths['/api/v1/earn'].get;
    const rating = {
      name: 'min_rating',
      in: 'query',
      description: 'A rating.',
      schema: { type: 'integer' },
      example: 3,
    };
    const withRating = describedWith('/api/v1/earn', 'get', {
      ...earn,
      parameters: [...(earn.parameters ?? []), rating],
    });
    const tool = deriveTools(ROUTES, withRating).find((t) => t.name === 'list_offers')!;
    expect(tool.inputSchema.properties.min_rating).toEqual({
      type: 'integer',
      description: 'A rating. (Only with family earn.)',
      examples: [3],
    });
  });

  it('refuses a route the description lacks', () => {
    expect(() => deriveTools(ROUTES, { ...description, paths: {} })).toThrow('no GET /api/v1/exchanges');
  });
});

describe('callTool', () => {
  const tools = deriveTools(ROUTES, description);
  const tool = (name: string) => tools.find((t) => t.name === name)!;
  const context = (handlers: Record<string, (event: ApiEvent) => Promise<ApiResult>>) => ({
    event: carrier,
    context: {},
    handlers,
    retryAfterSeconds: 1,
  });
  const answer = (body: unknown): ApiResult => ({ statusCode: 200, headers: {}, body: JSON.stringify(body) });

  it('asks a page that would not fit again with a smaller limit', async () => {
    const limits: string[] = [];
    const listEarnOffers = async (event: ApiEvent) => {
      const limit = event.queryStringParameters?.limit ?? '50';
      limits.push(limit);
      return answer({
        data: Array.from({ length: Number(limit) }, () => 'x'.repeat(1_500)),
        pagination: { limit: Number(limit) },
      });
    };
    const result = await callTool(tool('list_offers'), { family: 'earn', limit: 200 }, context({ listEarnOffers }));
    expect(limits).toEqual(['200', '100', '50']);
    expect(result.structuredContent.pagination).toEqual({ limit: 50 });
    expect(Buffer.byteLength(result.content[0].text)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
  });

  it('refuses an answer that is no page and would not fit, naming what to ask for instead', async () => {
    const getEarnHistories = async () => answer({ data: 'x'.repeat(MAX_RESULT_BYTES) });
    const result = await callTool(
      tool('offer_history'),
      { family: 'earn', ids: [1, 2] },
      context({ getEarnHistories }),
    );
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'validation_error', details: { message: [expect.stringMatching(/fewer ids/)] } },
    });
  });

  it('sends the arguments as the route’s path and query, lists joined by commas', async () => {
    const seen: ApiEvent[] = [];
    const getBorrowHistory = async (event: ApiEvent) => {
      seen.push(event);
      throw new NotFoundError('No such borrow offer.');
    };
    const result = await callTool(
      tool('offer_history'),
      { family: 'borrow', id: 7, period: '1w' },
      context({ getBorrowHistory }),
    );
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: 'not_found' } } });
    expect(seen[0]).toMatchObject({
      resource: '/api/v1/borrow/{id}/history',
      path: '/api/v1/borrow/7/history',
      pathParameters: { id: '7' },
      multiValueQueryStringParameters: { period: ['1w'] },
      requestContext: { requestId: 'r1', authorizer: { keyId: 'k' } },
    });
  });

  it.each([
    ['arguments that are not an object', ['earn']],
    ['a list of objects', { family: 'earn', ids: [{ id: 1 }] }],
    ['null', { family: 'earn', asset: null }],
  ])('refuses %s as arguments the tool does not take', async (_, args) => {
    await expect(callTool(tool('list_offers'), args, context({}))).rejects.toThrow(McpArgumentsError);
  });
});
