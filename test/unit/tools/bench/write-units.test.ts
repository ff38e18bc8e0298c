/**
 * The bench's write-unit rules (tools/bench/write-units.ts): item sizes as DynamoDB documents
 * them, checked against another implementation (dynalite's), and the write units of a write on the
 * table and its five indexes.
 */
import { type IndexShape, itemSize, writeUnits } from '../../../../tools/bench/write-units';

/** The five GSIs of the positioned layout (before ADR 0009), whose entries the baseline charged. */
const POSITIONED: IndexShape[] = ['GSI1', 'GSI2', 'GSI3', 'GSI4', 'GSI5'].map((name) => ({
  name,
  keys: ['GSIPK', `${name}SK`],
}));

// dynalite ships no types; its item-size function is what it reports ConsumedCapacity with.
const dynalite = require('dynalite/db') as { itemSize: (item: Record<string, unknown>) => number };

describe('itemSize', () => {
  it('counts a string by the UTF-8 bytes of its name and value', () => {
    expect(itemSize({ PK: 'abc' })).toBe(2 + 3);
    expect(itemSize({ név: 'é' })).toBe(4 + 2);
  });

  it('counts a number as 1 byte per two significant digits, leading and trailing zeros trimmed, plus 1', () => {
    expect(itemSize({ n: 123.45 })).toBe(1 + 3 + 1);
    expect(itemSize({ n: 0.0012 })).toBe(1 + 1 + 1);
    expect(itemSize({ n: 1200 })).toBe(1 + 1 + 1);
    expect(itemSize({ n: -7 })).toBe(1 + 1 + 1);
  });

  it('counts a binary by its raw bytes, a Boolean and a null as 1', () => {
    expect(itemSize({ bin: new Uint8Array(10) })).toBe(3 + 10);
    expect(itemSize({ b: true, z: null })).toBe(1 + 1 + 1 + 1);
  });

  it('counts a List or Map as 3 bytes plus 1 per element, a Map member with its name', () => {
    expect(itemSize({ l: ['ab', 1] })).toBe(1 + 3 + (1 + 2) + (1 + 2));
    expect(itemSize({ m: { a: 'xy' } })).toBe(1 + 3 + (1 + 1 + 2));
    expect(itemSize({ m: {}, l: [] })).toBe(1 + 3 + 1 + 3);
  });

  it('leaves out undefined attributes and members, as the client removes them', () => {
    expect(itemSize({ a: 'x', u: undefined, m: { v: undefined } })).toBe(1 + 1 + 1 + 3);
  });

  it('agrees with dynalite on an item like the import writes (ASCII, numbers of odd digit counts)', () => {
    const item = {
      PK: 'v#0123456789abcdef#earn',
      SK: 'o#00042',
      GSI1SK: 12345,
      available: true,
      tvl: null,
      doc: '{"id":42,"apy":"5.1","platform":{"slug":"binance"}}',
      families: {
        earn: { version: 'abc', count: 20001, publishedAt: '2026-11-23T10:00:00.000Z' },
        borrow: { count: 5 },
      },
      retired: [{ family: 'earn', version: 'def', at: '2026-11-23T09:00:00.000Z' }],
      tags: ['a', 'bb', 'ccc'],
    };
    const marshalled = {
      PK: { S: item.PK },
      SK: { S: item.SK },
      GSI1SK: { N: '12345' },
      available: { BOOL: true },
      tvl: { NULL: true },
      doc: { S: item.doc },
      families: {
        M: {
          earn: { M: { version: { S: 'abc' }, count: { N: '20001' }, publishedAt: { S: '2026-11-23T10:00:00.000Z' } } },
          borrow: { M: { count: { N: '5' } } },
        },
      },
      retired: { L: [{ M: { family: { S: 'earn' }, version: { S: 'def' }, at: { S: '2026-11-23T09:00:00.000Z' } } }] },
      tags: { L: [{ S: 'a' }, { S: 'bb' }, { S: 'ccc' }] },
    };
    expect(itemSize(item)).toBe(dynalite.itemSize(marshalled));
  });
});

/** An item of `bytes` bytes: its keys, with the keys of all five indexes if `indexed`, padded by one string. */
function itemOf(bytes: number, indexed: boolean, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const keys = {
    PK: 'p',
    SK: 's',
    ...(indexed ? { GSIPK: 'g', GSI1SK: 1, GSI2SK: 2, GSI3SK: 3, GSI4SK: 4, GSI5SK: 'x' } : {}),
    ...extra,
  };
  const pad = bytes - itemSize(keys) - 3;
  if (pad < 0) throw new Error('too small');
  const item = { ...keys, pad: 'x'.repeat(pad) };
  expect(itemSize(item)).toBe(bytes);
  return item;
}

describe('writeUnits', () => {
  it('charges the table 1 unit per KB of the item, rounded up, and nothing on indexes the item is not in', () => {
    expect(writeUnits(undefined, itemOf(1024, false), POSITIONED)).toEqual({ table: 1, indexes: 0 });
    expect(writeUnits(undefined, itemOf(1025, false), POSITIONED)).toEqual({ table: 2, indexes: 0 });
  });

  it('charges each index entry by the projected item plus 100 bytes', () => {
    expect(writeUnits(undefined, itemOf(900, true), POSITIONED)).toEqual({ table: 1, indexes: 5 });
    expect(writeUnits(undefined, itemOf(950, true), POSITIONED)).toEqual({ table: 1, indexes: 10 });
  });

  it('charges a deletion by the item deleted and its index entries, and 1 when there was none', () => {
    expect(writeUnits(itemOf(2500, true), undefined, POSITIONED)).toEqual({ table: 3, indexes: 15 });
    expect(writeUnits(undefined, undefined, POSITIONED)).toEqual({ table: 1, indexes: 0 });
  });

  it('charges an overwrite by the larger item; an unchanged index entry costs nothing, a moved one a delete and a put', () => {
    const before = itemOf(900, true, { GSI1SK: 10 });
    expect(writeUnits(before, before, POSITIONED)).toEqual({ table: 1, indexes: 0 });
    const larger = itemOf(1500, true, { GSI1SK: 10 });
    // Same keys, projected attributes changed: one write of the larger entry per index.
    expect(writeUnits(before, larger, POSITIONED)).toEqual({ table: 2, indexes: 10 });
    const moved = itemOf(900, true, { GSI1SK: 11 });
    // GSI1 moves (its old entry deleted, the new one put); the four others update in place.
    expect(writeUnits(before, moved, POSITIONED)).toEqual({ table: 1, indexes: 2 + 4 });
  });
});
