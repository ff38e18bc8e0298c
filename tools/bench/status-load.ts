/**
 * `GET /api/v1/status` under the latency model (docs/performance.md, "Latency under the model"): the
 * key-free docs function reads the pointer and the refresh times (two GetItems in parallel) and
 * answers every family's freshness. Its floor is those two raw reads, run in the same iteration
 * (the same drawn latencies), as the latency model does for the other kinds.
 */
import { performance } from 'node:perf_hooks';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { docsHandler } from '../../functions/docs/docs-handler';
import { pointerKey, refreshedKey } from '../../shared/data/keys';
import type { Stores } from '../../shared/data/stores';
import { dataStatus } from '../../shared/domain/status';
import type { ApiEvent } from '../../shared/http/http';
import { STATUS_PATH } from '../../shared/http/routes';
import { systemClock } from '../../shared/platform/clock';
import type { LatencyModel } from './latency-model';
import { type Latency, latencyOf, median, round } from './stats';

export interface StatusLoad {
  request_ms: Latency;
  floor_ms: Latency;
  ratio: number | null;
}

const TARGET = 1.2;

export async function measureStatus(
  model: LatencyModel,
  stores: Stores,
  client: DynamoDBDocumentClient,
  tableName: string,
  runs: number,
): Promise<StatusLoad> {
  const docs = docsHandler({
    status: (nowMs) => dataStatus(stores, nowMs, 86_400),
    clock: systemClock,
    retryAfterSeconds: 1,
  });
  const floor = () =>
    Promise.all(
      [pointerKey(), refreshedKey()].map((Key) => client.send(new GetCommand({ TableName: tableName, Key }))),
    );
  const request: number[] = [];
  const raw: number[] = [];
  for (let r = 0; r < runs; r++) {
    // As API Gateway hands the key-free function a request for its resource (no route of the API table).
    const event = {
      httpMethod: 'GET',
      resource: STATUS_PATH,
      path: STATUS_PATH,
      headers: {},
      queryStringParameters: null,
      pathParameters: null,
      requestContext: { requestId: `status-${r}` },
    } as unknown as ApiEvent;
    for (const [times, run] of r % 2 === 0
      ? ([
          [request, () => docs(event)],
          [raw, floor],
        ] as const)
      : ([
          [raw, floor],
          [request, () => docs(event)],
        ] as const)) {
      model.begin(3_000_000_000 + r);
      const start = performance.now();
      const out = await run();
      times.push(performance.now() - start);
      if ('statusCode' in out && out.statusCode !== 200) throw new Error(`/api/v1/status answered ${out.statusCode}`);
    }
  }
  return { request_ms: latencyOf(request), floor_ms: latencyOf(raw), ratio: round(median(request) / median(raw)) };
}

export function statusCheck(result: StatusLoad): { check: string; pass: boolean; detail: string } {
  return {
    check: `latency model: GET /api/v1/status p50 ≤ ${TARGET}× floor`,
    pass: result.ratio !== null && result.ratio <= TARGET,
    detail: `×${result.ratio} (request ${result.request_ms.p50} ms, floor ${result.floor_ms.p50} ms: the pointer and the refresh times, two GetItems)`,
  };
}
