/**
 * A small structured logger: one JSON line per entry, with the request id and key id attached by
 * the middleware. It never prints a key or an Authorization header: `redact` drops them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { systemClock } from './clock';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELDS = /^(authorization|authorizationtoken|key|apikey|api_key|token|secret)$/i;

export type LogSink = (line: string) => void;

let sink: LogSink = (line) => process.stdout.write(`${line}\n`);
const isLevel = (value: string | undefined): value is Level => value !== undefined && value in ORDER;
const fromEnv = process.env.LOG_LEVEL?.toLowerCase();
/** The lowest level written: LOG_LEVEL, read once when the function starts, or `setLogLevel`. */
let threshold = ORDER[isLevel(fromEnv) ? fromEnv : 'info'];
/** Fields of the request being served (request id, key id, route), per async context. */
const requestContext = new AsyncLocalStorage<Record<string, unknown>>();

export const setLogSink = (next: LogSink) => {
  sink = next;
};

/** @internal (exported for its tests) */
export const setLogLevel = (level: Level) => {
  threshold = ORDER[level];
};

/**
 * Attach fields to every line logged for the rest of this request. Call it synchronously at the
 * start of the request (as the log-context middleware does), so concurrent requests of the
 * local gateway never share fields.
 */
export const enterLogContext = (fields: Record<string, unknown>) => {
  requestContext.enterWith(fields);
};

function redact(value: unknown, depth = 0): unknown {
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  );
}

function write(level: Level, message: string, fields?: Record<string, unknown>) {
  if (ORDER[level] < threshold) return;
  const context = requestContext.getStore() ?? {};
  sink(
    JSON.stringify({
      level,
      time: systemClock().toISOString(),
      message,
      ...context,
      ...(redact(fields ?? {}) as object),
    }),
  );
}

export const logger = {
  /** A CloudWatch Embedded Metric Format document: written whatever LOG_LEVEL says. */
  metric: (document: Record<string, unknown>) => sink(JSON.stringify(document)),
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};
