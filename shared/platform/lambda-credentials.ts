/**
 * What the deployed bundles have in place of @aws-sdk/credential-provider-node. The SDK clients'
 * runtime configuration imports that package's `defaultProvider`, the whole default chain (SSO,
 * STS and OIDC clients, INI files, credential processes, the instance metadata service: a large
 * share of every bundle, docs/performance.md), even when a client is given credentials. In Lambda the credentials are
 * always in the environment, the chain's first link, so the bundles get only that link:
 * lib/bundling.ts aliases the package to this module (docs/adr/0007-credentials-from-the-environment.md).
 *
 * Imported by no code: only the bundler substitutes it (test/unit/lib/bundling.test.ts runs it in
 * bundles). Unbundled code (tests, the local stack, scripts) keeps the SDK's own chain.
 */
import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

/** AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; a CredentialsProviderError without them. */
export const defaultProvider = (init?: FromEnvInit) => fromEnv(init);
