/**
 * Routes the local gateway serves without a key: the API description, its docs page and the
 * page's files (functions/docs/documents.ts, the same documents the deployed stack serves).
 */
import { PUBLIC_DOCUMENT_PATHS, publicDocument } from '../functions/docs/documents';
import type { GatewayOptions } from './gateway';

type PublicRoutes = NonNullable<GatewayOptions['publicRoutes']>;

export function publicRoutes(): PublicRoutes {
  const routes: PublicRoutes = {};
  for (const path of PUBLIC_DOCUMENT_PATHS) routes[path] = () => publicDocument(path)!;
  return routes;
}
