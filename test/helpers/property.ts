/**
 * How many cases a property test tries, from one setting: PROPERTY_RUNS, a factor on the count each
 * test states (default 1: the counts `npm test` and .ci/run run). `PROPERTY_RUNS=10 npx jest
 * --selectProjects heavy` soaks the heavy properties; `PROPERTY_RUNS=0.1` looks quickly. Tests take
 * fast-check from here, so a property that states no count runs fast-check's 100 scaled the same way.
 */
import fc from 'fast-check';

const factor = Number(process.env.PROPERTY_RUNS ?? '1');
if (!(factor > 0)) throw new Error(`PROPERTY_RUNS must be a positive number, not ${process.env.PROPERTY_RUNS}`);

/** The cases to try for a property whose full run is `count`: at least one. */
export const runs = (count: number): number => Math.max(1, Math.round(count * factor));

fc.configureGlobal({ numRuns: runs(100) });

export { fc };
