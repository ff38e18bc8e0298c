/**
 * The order jest starts test files in (jest.config.js `testSequencer`). Jest's own order runs the
 * files it has timed slowest first, and files it has not timed (a fresh clone, so CI) largest first;
 * but the slowest files are not the largest: the integration tests load data into the embedded
 * DynamoDB, and a small one (streamed-answer, over 10,000 offers) started last and ended a CI run
 * with one of the two workers idle. Untimed files therefore start by suite, the slow suites first
 * (`integration`, then `heavy`, `stack`, `unit`), largest first within a suite; timed files keep
 * jest's order (slowest first), after the untimed ones as in jest.
 */
const Sequencer = require('@jest/test-sequencer').default;

/** The suites (jest.config.js `projects`) by how long their files take, slowest first. */
const SUITES = ['integration', 'heavy', 'stack', 'unit'];
const rank = (test) => {
  const name = test.context.config.displayName?.name;
  const at = SUITES.indexOf(name);
  return at === -1 ? SUITES.length : at;
};

class SlowSuitesFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // Jest's order: the files that failed last time, then the untimed ones (by size), then the timed.
    const untimed = (test) => test.duration == null && !this.hasFailed(test);
    const first = sorted.findIndex(untimed);
    if (first === -1) return sorted;
    const block = sorted.filter(untimed);
    // Stable: by size within a suite.
    sorted.splice(first, block.length, ...block.sort((a, b) => rank(a) - rank(b)));
    return sorted;
  }
}

module.exports = SlowSuitesFirst;
