import { parseDataset } from '../../../shared/schemas/dataset';
import { joinSourceRecords, observations, projectSnapshot, rollup, type CompleteDataset } from '../../../shared/import/project';
import { DATASET_FAMILIES } from '../../../shared/schemas/dataset';
import { fixtureDataset } from '../../fixtures/dataset';

const complete = (): CompleteDataset => {
  const parsed = parseDataset(fixtureDataset()) as Record<string, unknown[]>;
  return Object.fromEntries(DATASET_FAMILIES.map((f) => [f, parsed[f] ?? []])) as CompleteDataset;
};
const items = projectSnapshot('v1', complete());
const byKey = (pk: string, sk = 'ITEM') => items.find((i) => i.PK === pk && i.SK === sk);

describe('projectSnapshot', () => {
  it('writes no item for hidden or delisted records, nor aliases for their former slugs', () => {
    const keys = items.map((i) => i.PK);
    for (const hidden of ['EXCHANGES#hidden-ex', 'EXCHANGES#gone-ex', 'EXCHANGES#gone-old', 'WALLETS#bitbox', 'CURRENCIES#secret-coin', 'EARN#8', 'COLLATERAL#4']) {
      expect(keys).not.toContain(`V#v1#${hidden}`);
    }
    const docs = items.filter((i) => typeof i.doc === 'string').map((i) => i.doc as string).join('\n');
    expect(docs).not.toContain('"slug":"hidden-ex"');
    expect(docs).not.toContain('Gone Exchange');
  });

  it('writes an alias for a former slug of an exposed record', () => {
    expect(byKey('V#v1#EXCHANGES#bybit-old')).toEqual({ PK: 'V#v1#EXCHANGES#bybit-old', SK: 'ITEM', redirectTo: 'bybit' });
  });

  it('gives dense positions in the ordering and the exact view size', () => {
    const exchanges = items.filter((i) => i.GSIPK === 'V#v1#LIST#exchanges').sort((a, b) => (a.GSI1SK as number) - (b.GSI1SK as number));
    expect(exchanges.map((i) => JSON.parse(i.doc as string).slug)).toEqual(['binance', 'bybit', 'coinbase', 'kraken', 'okx']);
    expect(exchanges.map((i) => i.GSI1SK)).toEqual([0, 1, 2, 3, 4]);
    expect(byKey('V#v1#LIST#exchanges', 'META')).toMatchObject({ n: 5 });
  });

  it('places an offer in its family view and one view per filter dimension', () => {
    const copies = items.filter((i) => i.PK === 'V#v1#EARN#3').map((i) => [i.SK, i.GSIPK]);
    expect(copies).toEqual(
      expect.arrayContaining([
        ['ITEM', 'V#v1#LIST#earn'],
        ['VIEW#platform_type', 'V#v1#LIST#earn#platform_type#exchange'],
        ['VIEW#platform', 'V#v1#LIST#earn#platform#kraken'],
        ['VIEW#asset', 'V#v1#LIST#earn#asset#ethereum'],
      ]),
    );
    // An offer of a hidden platform has no platform views and renders platform: null.
    expect(items.filter((i) => i.PK === 'V#v1#EARN#5').map((i) => i.SK).sort()).toEqual(['ITEM', 'VIEW#asset']);
    expect(JSON.parse(byKey('V#v1#EARN#5')!.doc as string).platform).toBeNull();
  });

  it('keeps decimal strings byte for byte and normalizes timestamps', () => {
    const wallet = JSON.parse(byKey('V#v1#WALLETS#ledger')!.doc as string);
    const earn2 = byKey('V#v1#EARN#2')!.doc as string;
    expect(wallet.updated_at).toBe('2026-11-01T00:00:00.000Z');
    expect(earn2).toContain('"apy":"5.50"');
  });

  it('orders apy ties by id in both directions', () => {
    const earnAll = items.filter((i) => i.GSIPK === 'V#v1#LIST#earn');
    const order = (attr: string) => [...earnAll].sort((a, b) => (a[attr] as number) - (b[attr] as number)).map((i) => JSON.parse(i.doc as string).id);
    expect(order('GSI1SK').indexOf(1)).toBe(order('GSI1SK').indexOf(2) - 1); // 5.5 and 5.50 tie: id 1 first
    expect(order('GSI2SK').indexOf(1)).toBe(order('GSI2SK').indexOf(2) - 1);
  });
});

describe('history rollups', () => {
  const raw = observations([
    { timestamp: '2026-11-20T00:10:00Z', apy: '1' },
    { timestamp: '2026-11-20T03:50:00Z', apy: '2' },
    { timestamp: '2026-11-20T04:00:00Z', apy: '3' },
    { timestamp: '2026-11-20T00:10:00Z', apy: '9' }, // same instant, later in the file: wins
  ]);

  it('keeps the last observation of each bucket with its time', () => {
    expect(rollup(raw, '4h')).toEqual([
      [Date.parse('2026-11-20T00:00:00Z'), '2', null, Date.parse('2026-11-20T03:50:00Z')],
      [Date.parse('2026-11-20T04:00:00Z'), '3', null, Date.parse('2026-11-20T04:00:00Z')],
    ]);
    expect(raw[0][1]).toBe('9');
  });

  it('writes raw day chunks and month/year rollup chunks', () => {
    const history = items.filter((i) => i.PK === 'V#v1#HIST#EARN#1').map((i) => i.SK);
    expect(history).toEqual(expect.arrayContaining(['RAW#2026-11-20#000', '4H#2026-11', '1D#2026', '1W#2026']));
    expect(history.filter((sk) => sk.startsWith('RAW#'))).toHaveLength(61);
  });
});

describe('source records', () => {
  it('splits a history record larger than an item and joins it back whole', () => {
    const points = Array.from({ length: 30_000 }, (_, i) => ({ timestamp: new Date(Date.UTC(2023, 0, 1) + i * 3_600_000).toISOString(), apy: `4.${i}`, tvl: null }));
    const dataset = { ...complete(), earn_history: [{ offer_id: 1, points }] } as CompleteDataset;

    const sources = projectSnapshot('v2', dataset).filter((i) => i.PK === 'V#v2#SOURCE#earn_history');
    const records = sources.flatMap((i) => JSON.parse(i.records as string) as unknown[]);

    expect(sources.length).toBeGreaterThan(1);
    for (const item of sources) expect((item.records as string).length).toBeLessThan(350_000);
    expect(joinSourceRecords(records)).toEqual([{ offer_id: 1, points }]);
  });
});
