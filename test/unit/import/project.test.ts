import { CATALOG_FAMILIES, DATASET_FAMILY_OF, OFFER_FAMILIES } from '../../../shared/keys';
import { platformResolver, projectCatalog, projectOffers, projectSource } from '../../../shared/import/project';
import { parseDataset } from '../../../shared/schemas/dataset';
import { fixtureDataset } from '../../fixtures/dataset';

const dataset = parseDataset(fixtureDataset());
const resolve = platformResolver({ exchanges: dataset.exchanges ?? [], wallets: dataset.wallets ?? [], protocols: dataset.protocols ?? [] });
// Every family projected under the same version, as a first import of the fixture does.
const items = [
  ...CATALOG_FAMILIES.flatMap((family) => projectCatalog('v1', family, dataset[family] ?? [])),
  ...OFFER_FAMILIES.flatMap((family) => projectOffers('v1', family, dataset[DATASET_FAMILY_OF[family]] ?? [], resolve)),
];
const byKey = (pk: string, sk = 'ITEM') => items.find((i) => i.PK === pk && i.SK === sk);

describe('family projection', () => {
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

  it('places an offer with a platform and an asset in the views of platform_type or platform with asset', () => {
    const copies = items.filter((i) => i.PK === 'V#v1#EARN#3').map((i) => [i.SK, i.GSIPK]);
    expect(copies).toEqual(
      expect.arrayContaining([
        ['VIEW#platform_type+asset', 'V#v1#LIST#earn#platform_type+asset#exchange#ethereum'],
        ['VIEW#platform+asset', 'V#v1#LIST#earn#platform+asset#kraken#ethereum'],
      ]),
    );
    expect(copies).toHaveLength(6);
    // Only the copies whose lists can carry platform_type beside their own filters store it.
    const typed = items.filter((i) => i.PK === 'V#v1#EARN#3' && i.fType !== undefined).map((i) => i.SK).sort();
    expect(typed).toEqual(['VIEW#platform', 'VIEW#platform+asset']);
    expect(items.filter((i) => i.PK === 'V#v1#EARN#3' && (i.fPlatform !== undefined || i.fAsset !== undefined))).toEqual([]);
  });

  it('gives each pair view its own dense positions in every order, its APY keys and its size', () => {
    for (const pair of ['platform_type+asset#exchange#bitcoin', 'platform+asset#binance#bitcoin']) {
      const partition = `V#v1#LIST#earn#${pair}`;
      const members = items.filter((i) => i.GSIPK === partition);
      const oracle = items
        .filter((i) => i.SK === 'ITEM' && i.GSIPK === 'V#v1#LIST#earn')
        .map((i) => JSON.parse(i.doc as string))
        .filter((o) => o.asset?.slug === 'bitcoin' && (pair.startsWith('platform_type') ? o.platform?.type === 'exchange' : o.platform?.slug === 'binance'));
      expect(members.length).toBeGreaterThan(1);
      expect(members.map((i) => JSON.parse(i.doc as string).id).sort()).toEqual(oracle.map((o) => o.id).sort());
      for (const attr of ['GSI1SK', 'GSI2SK', 'GSI3SK', 'GSI4SK']) {
        expect(members.map((i) => i[attr]).sort()).toEqual(members.map((_, p) => p));
      }
      // apy_asc positions follow the APY value keys (GSI5), as in every view.
      const byApy = [...members].sort((a, b) => ((a.GSI5SK as string) < (b.GSI5SK as string) ? -1 : 1));
      expect(byApy.map((i) => i.GSI2SK)).toEqual(members.map((_, p) => p));
      expect(byKey(partition, 'META')).toMatchObject({ n: members.length });
    }
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

describe('platform references', () => {
  it('change their digest exactly when a rendered reference changes', () => {
    const platforms = { exchanges: dataset.exchanges ?? [], wallets: dataset.wallets ?? [], protocols: dataset.protocols ?? [] };
    const renamed = platforms.exchanges.map((e) => (e.slug === 'kraken' ? { ...e, name: 'Kraken Pro' } : e));
    const statsOnly = platforms.exchanges.map((e) => (e.slug === 'kraken' ? { ...e, updated_at: '2030-01-01T00:00:00Z' } : e));
    expect(platformResolver({ ...platforms, exchanges: renamed }).digest).not.toBe(resolve.digest);
    expect(platformResolver({ ...platforms, exchanges: statsOnly }).digest).toBe(resolve.digest);
    expect(platformResolver({ ...platforms, exchanges: renamed })({ type: 'exchange', slug: 'kraken', name: 'Kraken' })).toEqual({ type: 'exchange', slug: 'kraken', name: 'Kraken Pro' });
  });
});

describe('source records', () => {
  it('splits a family into items under the item size and reads back every record', () => {
    const records = Array.from({ length: 3_000 }, (_, id) => ({ id, note: 'x'.repeat(300) }));
    const sources = projectSource('v2', 'earn_offers', records);
    expect(sources.length).toBeGreaterThan(1);
    for (const item of sources) {
      expect(item.PK).toBe('V#v2#SOURCE#earn_offers');
      expect((item.records as string).length).toBeLessThan(350_000);
    }
    expect(sources.flatMap((i) => JSON.parse(i.records as string) as unknown[])).toEqual(records);
  });
});
