/**
 * Which functions a black-box test serves: the TypeScript sources, or with LOCAL_BUNDLES=DIR the
 * bundles `npm run synth` wrote to DIR (.ci/run runs the black-box tests that way after the synth
 * step; docs/architecture.md, "Testing what deploys").
 */
import { type Clock, systemClock } from '../../shared/platform/clock';

export const bundlesUnderTest = (): string | undefined => process.env.LOCAL_BUNDLES || undefined;

/**
 * The stack's clock in a black-box test: the instant the test chose for the sources; for bundles,
 * which read the process clock, the process clock (their data must not depend on the date).
 */
export const clockUnderTest = (at: Date): Clock => (bundlesUnderTest() ? systemClock : () => at);
