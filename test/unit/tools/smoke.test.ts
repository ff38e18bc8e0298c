import { PUBLIC_PATHS, ROUTES } from '../../../shared/http/routes';
import { OFFER_FAMILIES } from '../../../shared/model/offer-families';
import { reached, unreached } from '../../../tools/smoke/smoke';

/** A request path for each route of the table, its placeholders filled. */
const everyRoute = ROUTES.map(
  (r) => `${r.method === 'GET' ? '' : `${r.method} `}${r.path.replace('{slug}', 'a-slug').replace('{id}', '7')}`,
);
const everyPublicPath = PUBLIC_PATHS.map((p) => p.replace('{asset}', 'docs.js'));

describe('smoke coverage of the route table', () => {
  it('names the route or key-free path a request reaches, or nothing', () => {
    expect(reached('/api/v1/earn/changes?since=v1')).toBe('listEarnChanges');
    expect(reached('/api/v1/earn/7/history?period=1m')).toBe('getEarnHistory');
    expect(reached('/api/v1/earn/history?ids=7&period=1m')).toBe('getEarnHistories');
    expect(reached('/api/v1/earn/7')).toBe('getEarnOffer');
    expect(reached('/docs/docs.js')).toBe('/docs/{asset}');
    expect(reached('/openapi.json')).toBe('/openapi.json');
    expect(reached('/api/v1/nothing-here')).toBeUndefined();
    expect(reached('POST /mcp')).toBe('postMcp');
    expect(reached('/mcp')).toBeUndefined();
  });

  it('finds nothing unreached when every route and key-free path passed', () => {
    expect(unreached([...everyRoute, ...everyPublicPath])).toEqual([]);
  });

  it('names each route or key-free path that no passing check reached', () => {
    const without = [...everyRoute, ...everyPublicPath].filter(
      (path) => !path.endsWith('/usage') && !path.endsWith('/changes') && path !== '/openapi.json',
    );

    expect(unreached(without)).toEqual([
      ...OFFER_FAMILIES.map((family) => `list${family[0].toUpperCase()}${family.slice(1)}Changes`),
      'getUsage',
      '/openapi.json',
    ]);
  });
});
