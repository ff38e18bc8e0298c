/** The MCP function's composition root: configuration read and validated once, clients built once, the API description its tools come from. */
import openapiDocument from '../../docs/openapi.json';
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { readConfig } from '../../shared/platform/config';
import { mcpHandler } from './mcp-handler';

export const handler = lambdaHandler('mcp', mcpHandler(createApiDeps(readConfig(process.env)), openapiDocument));
