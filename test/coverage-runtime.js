/**
 * Jest's module runtime (jest.config.js `runtime`), with V8 coverage started once per worker
 * instead of once per test file.
 *
 * Jest's own runtime starts V8's precise coverage before each test file and stops it after
 * (collect-v8-coverage). Each start and stop makes V8 deoptimize every function and walk the whole
 * heap, and a worker's heap holds the modules of every file it has run: with coverage, the suite
 * took 2.2 times the CPU of the same suite without it, and a file of 0.1 s took 3.8 s.
 *
 * Here a worker starts coverage (and the debugger, which keeps every script, so that none is
 * collected before its counts are taken) with its first test file and never stops it. After each
 * file, one take gives the counts since the last (V8 resets them), and only the scripts compiled
 * since are reported: each test file compiles its own copy of the modules it loads, so a module's
 * earlier copies only repeat it, and what they ran after their file ended is dropped, as jest drops
 * it. (A take before each file too, to reset the counters, changed no count; each take returns
 * every script the worker holds.) Jest then filters and converts the result as it
 * does its own (`collectCoverageFrom`, source maps).
 *
 * The counts are binary (`callCount: false`): a block ran or did not, which is all the floor
 * reads. Counting every run of every block cost the suite about 70 CPU-seconds of its 545 (13 %).
 * V8 folds a block into the block around it when both report the same count, so binary counts
 * (all 1) fold more covered branches away than exact counts do; an uncovered block is never
 * folded (0 is not 1), so the uncovered statements, branches and functions are the same in both
 * modes, and the floor in jest.config.js is stated in them.
 */
const Runtime = require('jest-runtime').default;
const { Session } = require('node:inspector');

/** This worker's inspector session, connected with its first test file. */
let session;
/** The scripts a take has reported already: earlier files' copies of the modules. */
const reported = new Set();

const post = (method, params) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );

/** The counts since the last take (V8 resets them), of the scripts no take has reported. */
async function take() {
  const { result } = await post('Profiler.takePreciseCoverage');
  const fresh = result.filter((script) => !reported.has(script.scriptId));
  for (const script of result) reported.add(script.scriptId);
  return fresh;
}

class CoverageOncePerWorker extends Runtime {
  async collectV8Coverage() {
    if (!session) {
      session = new Session();
      session.connect();
      await post('Debugger.enable');
      await post('Profiler.enable');
      await post('Profiler.startPreciseCoverage', { callCount: false, detailed: true });
    }
    // What jest's collector keeps between its start and its result (jest-runtime V8CoverageCollector).
    this.v8Coverage.instrumenter = {};
    this.v8Coverage.sources = new Map();
  }

  async stopCollectingV8Coverage() {
    const collector = this.v8Coverage;
    collector.result = await take();
    collector.sources = new Map([...collector.sources, ...collector.transformCache.getEntries()]);
  }
}

module.exports = CoverageOncePerWorker;
