/**
 * HTTP client for integration tests against the local gateway. Every response is decoded
 * (gzip included) and checked against the API contract before the test sees it.
 */

import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import { checkResponse, type ObservedResponse } from './contract';

export interface TestResponse<T = any> extends ObservedResponse {
  body: T;
  raw: string;
}

export interface GetOptions {
  key?: string | null;
  headers?: Record<string, string>;
  method?: string;
}

export function get<T = any>(baseUrl: string, path: string, options: GetOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  const method = options.method ?? 'GET';
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let payload = Buffer.concat(chunks);
        if (res.headers['content-encoding'] === 'gzip') payload = gunzipSync(payload);
        const raw = payload.toString('utf8');
        const outHeaders = Object.fromEntries(
          Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), String(v)]),
        );
        let body: unknown;
        try {
          body = raw === '' ? undefined : JSON.parse(raw);
        } catch {
          body = raw;
        }
        const response = {
          method,
          path,
          status: res.statusCode ?? 0,
          headers: outHeaders,
          body,
          raw,
        } as TestResponse<T>;
        try {
          if (method === 'GET') checkResponse(response);
          resolve(response);
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Invoke a handler directly with an event, checking its result against the contract too. */
export async function invoke<T = any>(
  handler: (event: ApiEvent, context: never) => Promise<ApiResult>,
  event: ApiEvent,
): Promise<TestResponse<T>> {
  const result = await handler(event, {} as never);
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  const raw = result.body ?? '';
  const query = event.multiValueQueryStringParameters
    ? `?${Object.entries(event.multiValueQueryStringParameters)
        .flatMap(([k, vs]) => (vs ?? []).map((v) => `${k}=${encodeURIComponent(v)}`))
        .join('&')}`
    : '';
  const response = {
    method: 'GET',
    path: `${event.path}${query}`,
    status: result.statusCode,
    headers,
    body: raw === '' ? undefined : JSON.parse(raw),
    raw,
  } as TestResponse<T>;
  checkResponse(response);
  return response;
}
