/**
 * Time is an input (STYLE 27): code takes the time from a clock it is given, and only a composition
 * root (a function's handler.ts, a script's entry) hands it this one, the process's own. Tests
 * choose their instant and pass a clock of their own; test/unit/clock.test.ts holds every other
 * file to that.
 */
export type Clock = () => Date;

/** The process's clock: what a deployed function, `npm start`, `npm run import` and the bench read. */
export const systemClock: Clock = () => new Date();
