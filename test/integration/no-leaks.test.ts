/**
 * Nothing that is not public leaks (docs/security.md), through the local gateway with the SAMPLE
 * dataset (hidden, delisted and renamed records of every family, offers of hidden platforms):
 *
 * - no answer of any list (fully paged), detail, redirect or history names an unpublished or
 *   delisted platform or currency by slug or name, current or former;
 * - unpublished offers answer 404 (detail and history) and appear in no list and no currency
 *   detail;
 * - keys and Authorization values never reach a log line, for authorized and refused requests
 *   and for failing dependencies (the authorizer's and the functions').
 *
 * One exception (docs/api.md, "Visibility and platform references"): an offer's `chain`, `asset` and `reward_assets` are kept as
 * given, so a published offer about a delisted currency names it there. Those three fields are
 * removed from offers before the search; everything else is searched as the client receives it.
 * The search looks for `"slug":"<slug>"` and `"name":"<name>"`, which cannot match a longer
 * visible name or a URL that merely contains the slug.
 */
import { type LocalStack, startLocalStack } from '../../local/stack';
import { setLogLevel, setLogSink } from '../../shared/platform/logger';
import { generateDataset, SAMPLE } from '../../tools/sample-data/generate';
import { get, type TestResponse } from '../helpers/client';
import { connectionRefused, injectFaults } from '../helpers/faults';

const NOW = new Date('2026-11-20T10:00:00.000Z');
// The sample's records, with the history of 12 of its offers: what leaks would leak from any.
const dataset = generateDataset({ ...SAMPLE, historyOffers: 12, now: NOW });

const KEY = 'leak_PREMIUM_0123456789abcdefghijklmnopqrstuv';
const OTHER_PREMIUM_KEY = 'leak_PREMIUM_2_0123456789abcdefghijklmnopqrst';
const FREE_KEY = 'leak_FREE_0123456789abcdefghijklmnopqrstuvwxy';
const EXPIRED_KEY = 'leak_EXPIRED_0123456789abcdefghijklmnopqrstuv';
const REVOKED_KEY = 'leak_REVOKED_0123456789abcdefghijklmnopqrstuv';
const UNKNOWN_KEY = 'leak_UNKNOWN_0123456789abcdefghijklmnopqrstuv';
const ALL_KEYS = [KEY, OTHER_PREMIUM_KEY, FREE_KEY, EXPIRED_KEY, REVOKED_KEY, UNKNOWN_KEY];

const high = { per_minute: 1_000_000, per_month: 100_000_000 };
const ACCOUNTS = {
  users: [
    {
      id: 'premium',
      premium: true,
      premium_until: null,
      keys: [
        { key: KEY, ...high },
        { key: REVOKED_KEY, revoked: true, ...high },
      ],
    },
    { id: 'premium-2', premium: true, keys: [{ key: OTHER_PREMIUM_KEY, ...high }] },
    { id: 'free', premium: false, keys: [{ key: FREE_KEY }] },
    { id: 'lapsed', premium: true, premium_until: '2020-01-01T00:00:00.000Z', keys: [{ key: EXPIRED_KEY }] },
  ],
};

// ---- what must stay hidden -----------------------------------------------------------------------

type Catalog = { slug: string; name: string; published?: boolean; delisted?: boolean; previous_slugs?: string[] };
const CATALOGS: Record<'exchanges' | 'wallets' | 'protocols' | 'currencies', Catalog[]> = {
  exchanges: dataset.exchanges,
  wallets: dataset.wallets,
  protocols: dataset.protocols,
  currencies: dataset.currencies,
};
const FAMILIES = Object.keys(CATALOGS) as (keyof typeof CATALOGS)[];
const isExposed = (r: { published?: boolean; delisted?: boolean }) => r.published !== false && r.delisted !== true;

const hiddenRecords = FAMILIES.flatMap((family) =>
  CATALOGS[family].filter((r) => !isExposed(r)).map((record) => ({ family, record })),
);
const exposedRecords = FAMILIES.flatMap((family) =>
  CATALOGS[family].filter(isExposed).map((record) => ({ family, record })),
);

/** Values that a visible record carries too: finding them proves nothing, so they are not searched. */
const visibleSlugs = new Set(exposedRecords.flatMap(({ record }) => [record.slug, ...(record.previous_slugs ?? [])]));
const visibleNames = new Set(exposedRecords.map(({ record }) => record.name));

interface Needle {
  text: string;
  what: string;
}
const needles: Needle[] = [];
const ambiguous: string[] = [];
for (const { family, record } of hiddenRecords) {
  for (const slug of [record.slug, ...(record.previous_slugs ?? [])]) {
    if (visibleSlugs.has(slug)) ambiguous.push(`${family} slug ${slug}`);
    else needles.push({ text: `"slug":${JSON.stringify(slug)}`, what: `hidden ${family} slug ${slug}` });
  }
  if (visibleNames.has(record.name)) ambiguous.push(`${family} name ${record.name}`);
  else needles.push({ text: `"name":${JSON.stringify(record.name)}`, what: `hidden ${family} name ${record.name}` });
}

const OFFER_FAMILIES = {
  earn: dataset.earn_offers,
  borrow: dataset.borrow_offers,
  collateral: dataset.collateral_offers,
} as const;
type OfferFamily = keyof typeof OFFER_FAMILIES;
const hiddenOfferIds = Object.fromEntries(
  Object.entries(OFFER_FAMILIES).map(([family, offers]) => [
    family,
    new Set(offers.filter((o) => o.published === false).map((o) => o.id)),
  ]),
) as Record<OfferFamily, Set<number>>;
const publishedOfferIds = Object.fromEntries(
  Object.entries(OFFER_FAMILIES).map(([family, offers]) => [
    family,
    offers.filter((o) => o.published !== false).map((o) => o.id),
  ]),
) as Record<OfferFamily, number[]>;

// ---- the search ----------------------------------------------------------------------------------

/** The body with the offer fields the contract keeps as given removed (see the file comment). */
function searchable(body: unknown): string {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    const isOffer = 'compositeKey' in object;
    return Object.fromEntries(
      Object.entries(object)
        .filter(([k]) => !(isOffer && (k === 'chain' || k === 'asset' || k === 'reward_assets')))
        .map(([k, v]) => [k, strip(v)]),
    );
  };
  return JSON.stringify(strip(body)) ?? '';
}

const leaks: string[] = [];
let searched = 0;

function search(path: string, res: TestResponse) {
  searched++;
  const text = `${searchable(res.body)} ${res.headers.location ?? ''}`;
  for (const needle of needles)
    if (text.includes(needle.text)) leaks.push(`GET ${path} → ${res.status} names the ${needle.what}`);
}

// ---- the stack -----------------------------------------------------------------------------------

let stack: LocalStack;

/** GET with the premium key; every answer is searched (and validated against the OpenAPI document). */
async function fetchSearched(path: string, key = KEY): Promise<TestResponse> {
  const res = await get(stack.url, path, { key });
  search(path, res);
  return res;
}

/** Run `task` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

async function allPages(listPath: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 200) {
    const sep = listPath.includes('?') ? '&' : '?';
    const res = await fetchSearched(`${listPath}${sep}limit=200&offset=${offset}`);
    expect(res.status).toBe(200);
    items.push(...res.body.data);
    if (!res.body.pagination.has_more) {
      expect(items).toHaveLength(res.body.pagination.total);
      return items;
    }
  }
}

beforeAll(async () => {
  setLogSink(() => undefined);
  stack = await startLocalStack({
    clock: () => NOW,
    dataset,
    accounts: ACCOUNTS,
    authCacheTtlMs: 600_000,
    env: { RATE_LIMIT_PER_MINUTE: '1000000', QUOTA_PER_MONTH: '100000000', SNAPSHOT_CACHE_MS: '600000' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  setLogSink(() => undefined);
});

describe('hidden platforms and currencies', () => {
  it('the SAMPLE dataset has hidden, delisted and renamed records in every catalog family, and unpublished offers in every offer family', () => {
    for (const family of FAMILIES) {
      expect({ family, hidden: CATALOGS[family].some((r) => r.published === false && r.delisted !== true) }).toEqual({
        family,
        hidden: true,
      });
      expect({ family, delisted: CATALOGS[family].some((r) => r.delisted === true) }).toEqual({
        family,
        delisted: true,
      });
    }
    for (const family of Object.keys(OFFER_FAMILIES) as OfferFamily[])
      expect(hiddenOfferIds[family].size).toBeGreaterThan(0);
    // The search is not vacuous: almost every hidden value is distinct from the visible ones.
    expect(needles.length).toBeGreaterThan(2 * hiddenRecords.length - 3);
    expect(ambiguous.length).toBeLessThanOrEqual(3);
  });

  it('no list page names them, and no list holds them', async () => {
    for (const family of FAMILIES) {
      const items = await allPages(`/api/v1/${family}`);
      const slugs = new Set(items.map((item) => item.slug as string));
      expect(slugs).toEqual(new Set(CATALOGS[family].filter(isExposed).map((r) => r.slug)));
    }
    for (const family of Object.keys(OFFER_FAMILIES) as OfferFamily[]) {
      const items = await allPages(`/api/v1/${family}`);
      expect(items.map((o) => o.id as number).sort((a, b) => a - b)).toEqual(
        [...publishedOfferIds[family]].sort((a, b) => a - b),
      );
    }
    expect(leaks).toEqual([]);
  }, 120_000);

  it('no detail of a visible record names them (every platform, currency and offer)', async () => {
    const paths = [
      ...exposedRecords.map(({ family, record }) => `/api/v1/${family}/${encodeURIComponent(record.slug)}`),
      ...(Object.keys(OFFER_FAMILIES) as OfferFamily[]).flatMap((family) =>
        publishedOfferIds[family].map((id) => `/api/v1/${family}/${id}`),
      ),
    ];
    await pool(paths, 16, async (path) => {
      const res = await fetchSearched(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    });
    expect(leaks).toEqual([]);
  }, 180_000);

  it('the currency details embed no unpublished offer', async () => {
    const embedded: string[] = [];
    await pool(
      exposedRecords.filter(({ family }) => family === 'currencies'),
      16,
      async ({ record }) => {
        const res = await fetchSearched(`/api/v1/currencies/${encodeURIComponent(record.slug)}`);
        for (const family of Object.keys(OFFER_FAMILIES) as OfferFamily[]) {
          for (const offer of res.body[`${family}_offers`] as { id: number }[]) {
            if (hiddenOfferIds[family].has(offer.id)) embedded.push(`${record.slug}: ${family} offer ${offer.id}`);
          }
        }
      },
    );
    expect(embedded).toEqual([]);
    expect(leaks).toEqual([]);
  }, 120_000);

  it('their current and former slugs answer 404 on every detail route, as an unknown slug does', async () => {
    const slugs = hiddenRecords.flatMap(({ family, record }) =>
      [record.slug, ...(record.previous_slugs ?? [])].map((slug) => ({ family, slug })),
    );
    await pool(slugs, 16, async ({ family, slug }) => {
      const path = `/api/v1/${family}/${encodeURIComponent(slug)}`;
      const res = await fetchSearched(path);
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
      expect(res.raw).not.toContain(slug);
      // With a query, the query is checked before the lookup (docs/api.md, "Parameters"): the same 400 as for a
      // slug that never existed, so the answer does not tell hidden from unknown.
      const unknown = await fetchSearched(`/api/v1/${family}/never-existed-${family}?limit=1`);
      const hidden = await fetchSearched(`${path}?limit=1`);
      expect({ path, status: hidden.status, body: hidden.body }).toEqual({
        path,
        status: unknown.status,
        body: unknown.body,
      });
    });
    expect(leaks).toEqual([]);
  });

  it('former slugs of visible records redirect to the current slug, never to a hidden one', async () => {
    const formers = exposedRecords.flatMap(({ family, record }) =>
      (record.previous_slugs ?? []).map((former) => ({ family, former, current: record.slug })),
    );
    expect(formers.length).toBeGreaterThan(0);
    await pool(formers, 16, async ({ family, former, current }) => {
      const res = await fetchSearched(`/api/v1/${family}/${encodeURIComponent(former)}`);
      expect({ former, status: res.status, location: res.headers.location }).toEqual({
        former,
        status: 301,
        location: `/api/v1/${family}/${encodeURIComponent(current)}`,
      });
    });
    expect(leaks).toEqual([]);
  });

  it('offer lists filtered by a hidden platform are empty, and no filter brings them back', async () => {
    const platformFamilies = ['exchanges', 'wallets', 'protocols'];
    const hiddenPlatforms = hiddenRecords.filter(({ family }) => platformFamilies.includes(family));
    const paths = hiddenPlatforms.flatMap(({ record }) =>
      [record.slug, ...(record.previous_slugs ?? [])].flatMap((slug) =>
        (Object.keys(OFFER_FAMILIES) as OfferFamily[]).map((f) => `/api/v1/${f}?platform=${encodeURIComponent(slug)}`),
      ),
    );
    await pool(paths, 16, async (path) => {
      const res = await fetchSearched(path);
      expect({ path, status: res.status, total: res.body.pagination?.total }).toEqual({ path, status: 200, total: 0 });
    });
    for (const family of Object.keys(OFFER_FAMILIES) as OfferFamily[]) {
      for (const type of ['exchange', 'wallet', 'protocol']) await allPages(`/api/v1/${family}?platform_type=${type}`);
    }
    expect(leaks).toEqual([]);
  }, 120_000);
});

describe('unpublished offers', () => {
  it('answer 404 on their detail and history routes', async () => {
    const paths = (Object.keys(OFFER_FAMILIES) as OfferFamily[]).flatMap((family) =>
      [...hiddenOfferIds[family]].flatMap((id) => [
        `/api/v1/${family}/${id}`,
        ...(family === 'collateral' ? [] : [`/api/v1/${family}/${id}/history?period=all`]),
      ]),
    );
    await pool(paths, 16, async (path) => {
      const res = await fetchSearched(path);
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    });
  });

  it('the history of published offers names nothing hidden either', async () => {
    const series = [
      ...dataset.earn_history.map((s) => `/api/v1/earn/${s.offer_id}/history?period=all`),
      ...dataset.borrow_history.map((s) => `/api/v1/borrow/${s.offer_id}/history?period=all`),
    ];
    await pool(series, 8, async (path) => {
      const res = await fetchSearched(path);
      expect([200, 404]).toContain(res.status);
    });
    expect(searched).toBeGreaterThan(1000);
    expect(leaks).toEqual([]);
  });
});

describe('keys and Authorization values never reach a log line', () => {
  it('for authorized and refused requests and for failing dependencies', async () => {
    const captured: string[] = [];
    const capture = (chunk: unknown) => {
      captured.push(
        typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk),
      );
    };
    setLogSink(capture);
    setLogLevel('debug');
    const spies = [
      jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
        capture(chunk);
        return true;
      }),
      jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
        capture(chunk);
        return true;
      }),
      ...(['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((method) =>
        jest
          .spyOn(console, method)
          .mockImplementation((...args: unknown[]) =>
            capture(
              args
                .map((a) => (a instanceof Error ? `${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a)))
                .join(' '),
            ),
          ),
      ),
    ];
    const statuses: Record<string, number> = {};
    const call = async (label: string, path: string, headers: Record<string, string>) => {
      statuses[label] = (await get(stack.url, path, { headers })).status;
    };
    try {
      // Authorized, with both spellings of the scheme.
      await call('authorized', '/api/v1/exchanges?limit=1', { Authorization: `Bearer ${KEY}` });
      await call('authorized, lower-case scheme', `/api/v1/earn/${publishedOfferIds.earn[0]}`, {
        Authorization: `bearer ${KEY}`,
      });
      await call('authorized, validation error', '/api/v1/wallets?limit=0', { Authorization: `Bearer ${KEY}` });
      // Refused.
      await call('unknown key', '/api/v1/exchanges', { Authorization: `Bearer ${UNKNOWN_KEY}` });
      await call('revoked key', '/api/v1/exchanges', { Authorization: `Bearer ${REVOKED_KEY}` });
      await call('no premium', '/api/v1/exchanges', { Authorization: `Bearer ${FREE_KEY}` });
      await call('lapsed premium', '/api/v1/exchanges', { Authorization: `Bearer ${EXPIRED_KEY}` });
      await call('malformed key', '/api/v1/exchanges', { Authorization: `Bearer ${KEY}!` });
      await call('other scheme', '/api/v1/exchanges', { Authorization: `Basic ${KEY}` });
      await call('key without scheme', '/api/v1/exchanges', { Authorization: KEY });
      await call('no header', '/api/v1/exchanges', {});

      // DynamoDB unreachable: the functions fail (KEY's decision is cached by the gateway) and so
      // does the authorizer (OTHER_PREMIUM_KEY has no cached decision).
      const outage = injectFaults([stack.clients.client, stack.clients.counterClient], () => connectionRefused());
      try {
        await call('function dependency failure', '/api/v1/currencies/bitcoin', { Authorization: `Bearer ${KEY}` });
        await call('authorizer dependency failure', '/api/v1/exchanges', {
          Authorization: `Bearer ${OTHER_PREMIUM_KEY}`,
        });
      } finally {
        outage.remove();
      }
      await call('recovered', '/api/v1/exchanges?limit=1', { Authorization: `Bearer ${KEY}` });
    } finally {
      for (const spy of spies) spy.mockRestore();
      setLogLevel('info');
      setLogSink(() => undefined);
    }

    // The requests did what they were meant to.
    expect(statuses).toEqual({
      authorized: 200,
      'authorized, lower-case scheme': 200,
      'authorized, validation error': 400,
      'unknown key': 401,
      'revoked key': 401,
      'no premium': 403,
      'lapsed premium': 403,
      'malformed key': 401,
      'other scheme': 401,
      'key without scheme': 401,
      'no header': 401,
      'function dependency failure': 503,
      'authorizer dependency failure': 503,
      recovered: 200,
    });
    // The logs were written (the assertion below is not vacuous) …
    const logs = captured.join('\n');
    for (const expected of [
      'authorizer: allow',
      'authorizer: unauthorized',
      'authorizer: deny',
      'authorizer: failure',
      'quota charge failed',
    ]) {
      expect({ expected, logged: logs.includes(expected) }).toEqual({ expected, logged: true });
    }
    // … and hold no key and no Authorization value.
    for (const key of ALL_KEYS) {
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(key.slice(0, 24));
    }
    expect(logs).not.toMatch(/bearer/i);
    expect(logs).not.toMatch(/basic /i);
    expect(logs).not.toMatch(/authorization"?\s*[:=]\s*"?(?!\[redacted\])[^"\s[]/i);
  }, 60_000);
});
