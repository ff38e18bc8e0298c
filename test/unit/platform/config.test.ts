import { readConfig } from '../../../shared/platform/config';

describe('readConfig: RECORD_HISTORY', () => {
  const env = (value?: string) => ({ TABLE_NAME: 't', ...(value === undefined ? {} : { RECORD_HISTORY: value }) });

  it('records history by default (CONTRACT §12), and not when the stage says false', () => {
    expect(readConfig(env()).recordHistory).toBe(true);
    expect(readConfig(env('')).recordHistory).toBe(true);
    expect(readConfig(env('true')).recordHistory).toBe(true);
    expect(readConfig(env('false')).recordHistory).toBe(false);
  });

  it('refuses anything but true or false, naming the variable', () => {
    expect(() => readConfig(env('no'))).toThrow('configuration: RECORD_HISTORY must be true or false');
  });
});
