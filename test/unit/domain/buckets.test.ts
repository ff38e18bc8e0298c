import { bucketStart } from '../../../shared/domain/buckets';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('bucketStart', () => {
  it.each([
    ['1h', '2026-11-20T10:59:59.999Z', '2026-11-20T10:00:00.000Z'],
    ['4h', '2026-11-20T03:59:59.999Z', '2026-11-20T00:00:00.000Z'],
    ['4h', '2026-11-20T23:00:00.000Z', '2026-11-20T20:00:00.000Z'],
    ['1d', '2026-11-20T23:59:59.999Z', '2026-11-20T00:00:00.000Z'],
    ['1w', '2026-11-22T23:00:00.000Z', '2026-11-16T00:00:00.000Z'], // Sunday → Monday before
    ['1w', '2026-11-23T00:00:00.000Z', '2026-11-23T00:00:00.000Z'], // Monday itself
    ['1w', '1970-01-01T00:00:00.000Z', '1969-12-29T00:00:00.000Z'],
    ['1w', '1969-12-31T12:00:00.000Z', '1969-12-29T00:00:00.000Z'],
  ] as const)('%s bucket of %s starts at %s', (interval, time, start) => {
    expect(iso(bucketStart(interval, at(time)))).toBe(start);
  });
});
