/**
 * The MCP Inspector's command-line mode (`@modelcontextprotocol/inspector --cli`), the protocol's
 * own debugging client, lists and calls the tools of `POST /mcp` on the local stack with a Bearer
 * key (docs/api.md, "For assistants and agents").
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { fixtureDataset, NOW } from '../fixtures/dataset';

const KEY = 'mcp_inspector_0123456789abcdefghijklmn';
const INSPECTOR = require.resolve('@modelcontextprotocol/inspector/cli/build/cli.js');

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    dataset: fixtureDataset(),
    accounts: { users: [{ id: 'inspector', premium: true, keys: [{ key: KEY }] }] },
    clock: () => NOW,
  });
});
afterAll(() => stack.close());

/** One inspector run: its JSON output. */
async function inspector(...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      INSPECTOR,
      '--cli',
      `${stack.url}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${KEY}`,
      ...args,
    ],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout);
}

it('lists the tools and calls one, answering what the route answers', async () => {
  const listed = await inspector('--method', 'tools/list');
  expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(
    expect.arrayContaining(['search', 'list_offers', 'get_currency', 'offer_history']),
  );
  const called = await inspector(
    '--method',
    'tools/call',
    '--tool-name',
    'get_platform',
    '--tool-arg',
    'type=protocol',
    'slug=makerdao',
  );
  const response = await fetch(`${stack.url}/api/v1/protocols/maker`, { headers: { Authorization: `Bearer ${KEY}` } });
  expect(called.structuredContent).toEqual(await response.json());
  expect(called.isError).toBeUndefined();
});
