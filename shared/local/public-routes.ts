/**
 * Routes the local gateway serves without a key: the API description and its docs page.
 * Filled in by the OpenAPI work; until then they answer 404 with the envelope.
 */
import type { GatewayOptions } from './gateway';

export function publicRoutes(): NonNullable<GatewayOptions['publicRoutes']> {
  return {};
}
