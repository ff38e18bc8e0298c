/**
 * `npm run bench [-- --quick | --imports | --model | --against REF | --scale N]`: the benchmark
 * (tools/bench/run.ts, tools/bench/README.md; docs/performance.md).
 */
import { runBench } from '../tools/bench/run';

runBench(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
