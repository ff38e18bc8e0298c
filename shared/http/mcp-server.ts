/**
 * `POST /mcp` (docs/api.md, "For assistants and agents"; ADR 0027): the Model Context Protocol's
 * Streamable HTTP transport, stateless and answering JSON, with the official SDK. Each request
 * builds its server and transport, answers its JSON-RPC message and ends: no session, nothing kept
 * between requests, so any instance answers any request and every request is one budget unit like
 * any other (the function's middleware charges it). The tools are mcp-tools.ts's.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { inWords, OFFER_FAMILIES } from '../model/offer-families';
import { type ApiEvent, type ApiResult, queryValues } from './http';
import { callTool, McpArgumentsError, type Tool, type ToolContext } from './mcp-tools';
import type { RouteHandler } from './middleware/api-handler';
import { NO_QUERY, parseQuery } from './query';

export interface McpOptions {
  tools: readonly Tool[];
  /** The API description's version, the server's. */
  version: string;
  /** The route handlers the tools call, by operation. */
  handlers: ToolContext['handlers'];
  retryAfterSeconds: number;
}

/** What the server tells an assistant when it connects. */
const INSTRUCTIONS =
  `Market data for crypto finance: exchanges, wallets, DeFi protocols, currencies, and their ${inWords(OFFER_FAMILIES)} offers with APY history. ` +
  'Use `search` to turn a name or symbol ("USDC", "Aave") into the slug the other tools take; lists are paged (`limit`, `offset`).';

/** The request as the Fetch API's Request (the SDK's transport reads one): API Gateway sends the body base64 when it is binary. */
function requestOf(event: ApiEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const body =
    event.body === null || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(new URL(event.path, 'https://mcp.invalid'), { method: event.httpMethod, headers, body });
}

/** The route handler of `POST /mcp`. */
export function mcpRoute(options: McpOptions): RouteHandler {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const listed = options.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  return async (event, context): Promise<ApiResult> => {
    parseQuery(NO_QUERY(), queryValues(event));
    const server = new Server(
      { name: 'market-data-api', version: options.version },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      try {
        return await callTool(tool, request.params.arguments, {
          event,
          context,
          handlers: options.handlers,
          retryAfterSeconds: options.retryAfterSeconds,
        });
      } catch (error) {
        if (error instanceof McpArgumentsError) throw new McpError(ErrorCode.InvalidParams, error.message);
        throw error;
      }
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(requestOf(event));
      const headers: Record<string, string> = {};
      // Named as the functions name them, so that the response headers middleware finds them.
      response.headers.forEach((value, name) => {
        headers[name === 'content-type' ? 'Content-Type' : name] = value;
      });
      return { statusCode: response.status, headers, body: await response.text() };
    } finally {
      await server.close();
    }
  };
}
