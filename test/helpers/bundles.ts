/**
 * Which functions a black-box test serves: the TypeScript sources, or with LOCAL_BUNDLES=DIR the
 * bundles `npm run synth` wrote to DIR (.ci/run runs the black-box tests that way after the synth
 * step; docs/architecture.md, "Testing what deploys").
 */
export const bundlesUnderTest = (): string | undefined => process.env.LOCAL_BUNDLES || undefined;
