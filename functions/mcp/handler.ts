/** The MCP function's composition root: configuration read and validated once, clients built once, the API description its tools come from. */
import openapiDocument from '../../docs/openapi.json';
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { createClients } from '../../shared/platform/dynamodb';
import { mcpHandler } from './mcp-handler';

const config = readConfig(process.env);

export const handler = lambdaHandler(
  'mcp',
  mcpHandler(createApiDeps(config, createClients(config), systemClock), openapiDocument),
);
