import { groupBy } from '../../../shared/platform/group-by';

describe('groupBy', () => {
  it('groups items by key, each group in the items’ order, the groups in the order of their first item', () => {
    const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]);

    expect([...groups.keys()]).toEqual(['b', 'a', 'c']);
    expect([...groups.values()]).toEqual([['b1', 'b2'], ['a1', 'a2'], ['c1']]);
  });

  it('groups nothing into no group', () => {
    expect(groupBy([], (n: number) => n).size).toBe(0);
  });
});
