/**
 * Work in steps (shared/platform/steps.ts): run whole at once, or with the event loop turning
 * between the steps, so that what else the instance does (a request's reads, its answer) runs
 * between them: the index a pointer read ahead builds beside a request (index-store.ts).
 */
import { finished, finishedBetween, type Steps } from '../../../shared/platform/steps';

/** Three steps, each noted in `log` as it runs; their count as the result. */
function* counted(log: string[]): Steps<number> {
  log.push('step 1');
  yield;
  log.push('step 2');
  yield;
  log.push('step 3');
  return 3;
}

describe('steps', () => {
  it('run whole at once: every step before the caller goes on', () => {
    const log: string[] = [];
    expect(finished(counted(log))).toBe(3);
    log.push('after');
    expect(log).toEqual(['step 1', 'step 2', 'step 3', 'after']);
  });

  it('run between other work: what is waiting on the event loop runs between each two steps', async () => {
    const log: string[] = [];
    // Other work: an I/O-like callback ready once each turn of the loop, as long as the steps run.
    let running = true;
    const other = () => {
      if (!running) return;
      log.push('other');
      setImmediate(other);
    };
    setImmediate(other);
    const result = await finishedBetween(counted(log));
    running = false;
    expect(result).toBe(3);
    expect(log.filter((l) => l !== 'other')).toEqual(['step 1', 'step 2', 'step 3']);
    // Between steps 1 and 2, and 2 and 3, the other work ran.
    const at = (step: string) => log.indexOf(step);
    expect(log.slice(at('step 1'), at('step 2'))).toContain('other');
    expect(log.slice(at('step 2'), at('step 3'))).toContain('other');
  });

  it('a step that throws rejects the run, and no later step runs', async () => {
    const log: string[] = [];
    function* failing(): Steps<number> {
      log.push('step 1');
      yield;
      throw new Error('does not apply');
    }
    await expect(finishedBetween(failing())).rejects.toThrow('does not apply');
    expect(() => finished(failing())).toThrow('does not apply');
    expect(log).toEqual(['step 1', 'step 1']);
  });
});
