/**
 * Examples are tests (STYLE 28, CONTRACT §9): every `curl` line of README.md and docs/api.md, every
 * example script as the docs run it, and every example value of the API description, against the
 * sample `npm start` serves, on the process clock as `npm start` has it (CI runs the suite with that
 * clock moved: .ci/run). Each must answer, and answer data where it promises data: never a 404, an
 * empty list or an empty history.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { ROUTES } from '../../shared/http/routes';
import { importDataset } from '../../shared/import/importer';
import { systemClock } from '../../shared/platform/clock';
import { anchorOf, generateDataset, SAMPLE } from '../../tools/sample-data/generate';

const ROOT = join(__dirname, '..', '..');
const DOC = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));
const DEMO = JSON.parse(readFileSync(join(ROOT, 'data', 'demo-accounts.json'), 'utf8'));
const KEY: string = DEMO.users.find((u: { premium: boolean }) => u.premium).keys[0].key;
// The demo key, with room for every example of this file in one minute.
const ACCOUNTS = {
  users: DEMO.users.map((user: { keys: Array<{ key: string }> }) => ({
    ...user,
    keys: user.keys.map((k) => (k.key === KEY ? { ...k, per_minute: 100_000 } : k)),
  })),
};
const run = promisify(execFile);

let stack: LocalStack;
let work: string;
let sample: ReturnType<typeof generateDataset>;

/**
 * As the docs' webhook lines run: an import that moves one earn offer's APY by `points` (the demo
 * user's subscription watches earn with `apy_change` 0.5), then the stack's matching and sending.
 */
async function importMovedOffer(points: number) {
  const earn = (sample as { earn_offers: Array<{ apy: string }> }).earn_offers;
  const moved = {
    ...sample,
    earn_offers: [{ ...earn[0], apy: (Number(earn[0].apy) + points).toFixed(2) }, ...earn.slice(1)],
  };
  await importDataset(moved, { client: stack.clients.client, tableName: stack.tableName, now: systemClock });
  await stack.webhooks.poll();
}

beforeAll(async () => {
  // What `npm start` serves: the sample of this hour, on the process clock.
  sample = generateDataset({ ...SAMPLE, now: anchorOf(systemClock()) });
  stack = await startLocalStack({ dataset: sample, accounts: ACCOUNTS, clock: systemClock });
  work = mkdtempSync(join(tmpdir(), 'examples-'));
  // The deliveries' line follows an import (README, "Webhooks"): one, whose receiver is not running yet.
  await importMovedOffer(1);
}, 300_000);
afterAll(async () => {
  await stack?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The lines of the docs that run `command` (at their start, or in a `$(…)`). */
function docLines(command: RegExp): Array<[string, string]> {
  return ['README.md', 'docs/api.md'].flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => command.test(line))
      .map((line) => [file, line] as [string, string]),
  );
}

interface CurlRequest {
  url: string;
  headers: Record<string, string>;
}

/** The request a `curl` line sends, on this stack, with the demo key; a header naming a shell variable it left unset is left out. */
function curlRequest(line: string): CurlRequest {
  const curl = line.slice(line.indexOf('curl '));
  const quoted = [...curl.matchAll(/(-H\s+)?(["'])(.*?)\2|(\S+)/g)];
  const headers: Record<string, string> = {};
  let url = '';
  for (const [, isHeader, , text, bare] of quoted) {
    const value = (text ?? bare ?? '')
      .replaceAll('$KEY', KEY)
      .replaceAll('$BASE', stack.url)
      .replaceAll('http://127.0.0.1:3000', stack.url);
    if (isHeader) {
      const [name, ...rest] = value.split(':');
      if (!/[$<]/.test(rest.join(':'))) headers[name.trim()] = rest.join(':').trim();
    } else if (value.startsWith(stack.url) && !url) url = value;
  }
  return { url, headers };
}

/** What a `200` promises: a list, a history or a CSV with rows. */
function emptiness(contentType: string, body: string): string | undefined {
  if (contentType.startsWith('text/csv'))
    return body.trim().split('\r\n').length > 1 ? undefined : 'a CSV of a header alone';
  const json = JSON.parse(body) as { data?: unknown };
  if (!Array.isArray(json.data)) return undefined;
  if (json.data.length === 0) return 'an empty list';
  const histories = json.data.filter((entry) => Array.isArray((entry as { data?: unknown }).data));
  const empty = histories.filter((entry) => (entry as { data: unknown[] }).data.length === 0);
  return empty.length > 0 ? `${empty.length} empty histories` : undefined;
}

describe('every curl line of README.md and docs/api.md', () => {
  const lines = docLines(/^(\w+=\$\()?curl /);

  it('finds the lines', () => {
    expect(lines.length).toBeGreaterThan(15);
  });

  it.each(lines)('%s: %s', async (_file, line) => {
    const { url, headers } = curlRequest(line);
    const res = await fetch(url, { headers });
    const body = await res.text();

    expect([url, res.status]).toEqual([url, headers['If-None-Match'] && res.status === 304 ? 304 : 200]);
    if (res.status === 200) expect(emptiness(res.headers.get('content-type') ?? '', body)).toBeUndefined();
  });
});

describe('every example script, as the docs run it', () => {
  // The webhook receiver is a server that waits for a delivery: test/integration/webhooks-delivery.test.ts
  // runs it as the README does and sends it a publish's events.
  const lines = docLines(/^npx tsx examples\//).filter(([, line]) => !line.includes('examples/webhook-receiver.ts'));

  it('finds a line for each script', () => {
    const scripts = new Set(lines.map(([, line]) => /examples\/[\w-]+\.ts/.exec(line)![0]));
    expect(scripts.size).toBe(4);
  });

  it.each(lines)(
    '%s: %s',
    async (_file, line) => {
      const args = line
        .replace(/^npx tsx /, '')
        .replaceAll('http://127.0.0.1:3000', stack.url)
        .replaceAll('--url URL', `--url ${stack.url}`)
        .replaceAll('KEY', KEY)
        .split(/\s+/)
        .map((arg) => (/\.(csv|json)$/.test(arg) ? join(work, arg) : arg));
      const { stdout } = await run(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, timeout: 60_000 });
      const out = args.indexOf('--out');
      const file = args.indexOf('--file');
      const written =
        out >= 0 ? readFileSync(args[out + 1], 'utf8') : file >= 0 ? readFileSync(args[file + 1], 'utf8') : stdout;

      // A CSV of a header alone, an empty copy or no line printed is the empty first run this test is for.
      if (out >= 0) expect(written.trim().split('\n').length).toBeGreaterThan(1);
      else if (file >= 0)
        expect(Object.keys(JSON.parse(written).offers ?? JSON.parse(written)).length).toBeGreaterThan(0);
      else expect(stdout.trim().split('\n').length).toBeGreaterThanOrEqual(line.includes('stable-yields') ? 5 : 1);
    },
    // Generous: a script starts its own TypeScript compiler, and CI runs two test files at once.
    180_000,
  );
});

describe('every example value of the API description', () => {
  /** An operation's path with its path parameters' examples. */
  const examplePath = (path: string, parameters: Array<{ in: string; name: string; example?: unknown }>) =>
    path.replace(/\{(\w+)\}/g, (_, name) =>
      String(parameters.find((p) => p.in === 'path' && p.name === name)?.example),
    );
  const parametersOf = (operation: { parameters?: Array<{ $ref?: string }> }) =>
    (operation.parameters ?? []).map((p) =>
      p.$ref ? DOC.components.parameters[p.$ref.split('/').pop()!] : (p as Record<string, unknown>),
    );
  // A data version's name (`snapshot`, `since`) exists in one table only: no example can name one.
  const VERSIONED = new Set(['snapshot', 'since']);
  // A fixed end (`to`) answers, but on a later date its window holds none of the sample's 90 days.
  const DATED = new Set(['to']);
  const cases = ROUTES.filter((route) => route.method === 'GET' && DOC.paths[route.path]?.get).flatMap((route) => {
    const parameters = parametersOf(DOC.paths[route.path].get);
    const path = examplePath(route.path, parameters);
    const required = parameters.filter((p) => p.in === 'query' && p.required);
    if (required.some((p) => VERSIONED.has(p.name))) return [];
    const base = required.map((p) => `${p.name}=${[p.example].flat().join(',')}`);
    const optional = parameters.filter((p) => p.in === 'query' && !p.required && !VERSIONED.has(p.name));
    const value = (name: string) => `${name}=${[parameters.find((p) => p.name === name)!.example].flat().join(',')}`;
    return [
      [route.operationId, [path, base.join('&')].filter(Boolean).join('?')],
      // `to` goes with `from`.
      ...optional.map((p) => [
        `${route.operationId} ${p.name}`,
        `${path}?${[...base, ...(p.name === 'to' ? [value('from')] : []), value(p.name)].join('&')}`,
      ]),
    ] as Array<[string, string]>;
  });

  it('finds every data route', () => {
    expect(cases.length).toBeGreaterThan(40);
  });

  it.each(cases)('%s: %s', async (operationId, pathAndQuery) => {
    const res = await fetch(`${stack.url}${pathAndQuery}`, { headers: { Authorization: `Bearer ${KEY}` } });
    const body = await res.text();
    const never = operationId.startsWith('getCollateralHistor');

    expect([pathAndQuery, res.status]).toEqual([pathAndQuery, never ? 404 : 200]);
    if (!never && !DATED.has(operationId.split(' ')[1]))
      expect(emptiness(res.headers.get('content-type') ?? '', body)).toBeUndefined();
  });
});
