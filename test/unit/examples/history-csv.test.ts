import { csvText, historyRows } from '../../../examples/history-csv';

describe('examples/history-csv.ts', () => {
  it('writes RFC 4180: CRLF lines, a header, quotes only where a field needs them, null as an empty field', () => {
    const rows = historyRows('earn', [
      { id: 7, data: [{ timestamp: '2026-11-19T00:00:00.000Z', apy: '5.40', tvl: null }] },
      { id: 9, data: [{ timestamp: '2026-11-20T00:00:00.000Z', apy: '1e-7', tvl: '1840000' }] },
    ]);
    expect(csvText(rows)).toBe(
      'id,timestamp,apy,tvl\r\n7,2026-11-19T00:00:00.000Z,5.40,\r\n9,2026-11-20T00:00:00.000Z,1e-7,1840000\r\n',
    );
    expect(csvText([['a,b', 'say "hi"', 'two\nlines', 'plain']])).toBe('"a,b","say ""hi""","two\nlines",plain\r\n');
  });

  it('has no tvl column for borrow', () => {
    expect(historyRows('borrow', [{ id: 3, data: [{ timestamp: 't', apy: '6.12' }] }])).toEqual([
      ['id', 'timestamp', 'apy'],
      [3, 't', '6.12'],
    ]);
  });
});
