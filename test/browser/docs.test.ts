/**
 * The docs page in a real browser: Debian's chromium, driven by playwright-core, opens `/docs` on
 * a local stack and must render every operation of the route table, loading nothing from outside
 * the API and raising no script or Content-Security-Policy error. Skipped (and said so) only
 * when /usr/bin/chromium is not installed: `apt-get install -y chromium`.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { publicRoutes } from '../../local/public-routes';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { ROUTES } from '../../shared/http/routes';
import { fixtureDataset, NOW } from '../fixtures/dataset';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = '/tmp/market-data-docs.png';

/**
 * `.ci/run` starts the tests while it installs Chromium beside them and names a file it writes when
 * the install has ended (CHROMIUM_INSTALL_DONE): this file waits for it (at most 5 minutes), so
 * that whether the browser test runs does not depend on which finished first.
 */
function awaitChromiumInstall(): void {
  const done = process.env.CHROMIUM_INSTALL_DONE;
  if (!done) return;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = performance.now() + 5 * 60_000;
  while (!existsSync(done) && performance.now() < deadline) Atomics.wait(sleeper, 0, 0, 500);
}

awaitChromiumInstall();
const haveChromium = existsSync(CHROMIUM);
const itInBrowser = haveChromium ? it : it.skip;
const skipNote = haveChromium ? '' : ` [SKIPPED: ${CHROMIUM} is missing; install it with apt-get install -y chromium]`;
if (!haveChromium)
  process.stderr.write(`docs browser test SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium)\n`);

let stack: LocalStack | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!haveChromium) return;
  stack = await startLocalStack({
    dataset: fixtureDataset(),
    accounts: { users: [] },
    publicRoutes: publicRoutes(),
    clock: () => NOW,
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    // The browser runs on the real clock: .ci/run moves the suite's clock with libfaketime
    // (LD_PRELOAD), under which Chromium does not render the page.
    env: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('LD_PRELOAD') && !name.startsWith('FAKETIME')),
    ) as Record<string, string>,
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('GET /docs in chromium', () => {
  itInBrowser(`renders every operation, from the API's own files only${skipNote}`, async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1600 } });
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (req) => requested.push(req.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });

    const response = await page.goto(`${stack!.url}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });

    const listed = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((n) => n.getAttribute('data-path')));
    expect(listed).toEqual(expect.arrayContaining(['/api/v1/earn', '/api/v1/currencies/{slug}']));
    for (const route of ROUTES) expect(listed).toContain(route.path);
    expect(await page.textContent('.info .title')).toContain('Market Data API');
    await page.locator('.opblock-tag-section').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });

    expect(requested.filter((url) => !url.startsWith(`${stack!.url}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
