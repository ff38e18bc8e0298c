/**
 * The sample-data generator's heavy tests (generate.test.ts holds the quick ones): a second
 * generation of the sample preset is identical, and 12,000 currencies synthesize unique names
 * beyond the real ones.
 */
import { generateDataset, SAMPLE } from '../../../../tools/sample-data/generate';
import type { CurrencyRecord, PlatformRecord } from '../../../../tools/sample-data/types';

const OPTIONS = { ...SAMPLE, now: new Date('2025-06-01T12:00:00.000Z') };
type CatalogRecord = PlatformRecord | CurrencyRecord;

it('gives identical output for the same seed and anchor', () => {
  const once = generateDataset({ ...OPTIONS });
  const again = generateDataset({ ...OPTIONS });

  expect(JSON.stringify(again)).toBe(JSON.stringify(once));
});

it('synthesizes unique currencies and platforms beyond the real names', () => {
  const zero = { exchanges: 0, wallets: 0, protocols: 0, earn: 0, borrow: 0, collateral: 0, historyOffers: 0 };
  const big = generateDataset({
    ...OPTIONS,
    ...zero,
    currencies: 12_000,
    exchanges: 120,
    wallets: 80,
    protocols: 200,
  });
  // "Nova Token 12" / "NOV12" / "nova-token-12"
  const synthesized = big.currencies.filter(
    (c) => /^[A-Z][a-z]+ (Token|Coin|Network|Chain|Finance) \d+$/.test(c.name) && /^[A-Z]{3}\d+$/.test(c.symbol),
  );

  expect(synthesized.length).toBeGreaterThan(big.currencies.length - 11_500);
  expect(synthesized.filter((c) => c.slug !== c.name.toLowerCase().replace(/ /g, '-'))).toEqual([]);
  for (const records of [big.currencies, big.exchanges, big.wallets, big.protocols] as CatalogRecord[][]) {
    expect(new Set(records.map((r) => r.slug)).size).toBe(records.length);
  }
  expect(new Set(big.currencies.map((c) => c.symbol)).size).toBe(big.currencies.length);
  expect(big.exchanges.map((e) => e.name)).toEqual(expect.arrayContaining(['Binance', 'Coinbase', 'Kraken', 'OKX']));
  expect(big.exchanges.some((e) => e.url.endsWith('.example'))).toBe(true);
});
