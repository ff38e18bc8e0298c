/**
 * Routes the local gateway serves without a key: the API description, its docs page and the
 * page's files (shared/openapi/assets.ts, the same documents the deployed stack serves).
 */
import { PUBLIC_DOCUMENT_PATHS, publicDocument } from '../openapi/assets';
import type { GatewayOptions } from './gateway';

type PublicRoutes = NonNullable<GatewayOptions['publicRoutes']>;

export function publicRoutes(): PublicRoutes {
  const routes: PublicRoutes = {};
  for (const path of PUBLIC_DOCUMENT_PATHS) routes[path] = () => publicDocument(path)!;
  return routes;
}
