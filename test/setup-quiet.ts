// Tests are quiet unless one fails: the log lines and EMF metrics of the code under test are
// dropped (TEST_LOGS=1 keeps them). Tests that assert on log lines install their own sink.
import { setLogSink } from '../shared/platform/logger';

if (process.env.TEST_LOGS !== '1') setLogSink(() => undefined);
