/**
 * Read capacity of a list page by depth: the page at an offset, and the mean over the `pages`
 * consecutive pages from there. One page's capacity moves with the bytes of its items (DynamoDB
 * rounds each read up to 4 KB); the mean over a few pages shows what depth itself costs.
 */
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../local/events';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import type { Handler } from './measure';
import type { Check } from './report';
import { round } from './stats';

export interface DepthCost {
  offset: number;
  /** Read capacity of each of the pages from `offset` on (the first is the page at `offset`). */
  pages: number[];
  mean: number;
}

export async function readCapacityAtDepth(
  handler: Handler,
  list: string,
  offset: number,
  limit = 50,
  pages = 10,
): Promise<DepthCost> {
  const costs: number[] = [];
  for (let i = 0; i < pages; i++) {
    const event = apiEvent(`${list}?limit=${limit}&offset=${offset + i * limit}`, {
      keyId: `bench-depth-${offset}`,
      perMinute: 1e9,
      perMonth: 1e9,
    });
    const { accounting } = await withRequestAccounting(() => handler(event, {} as Context));
    costs.push(accounting.calls.reduce((sum, call) => sum + call.readCapacity, 0));
  }
  return { offset, pages: costs, mean: round(costs.reduce((a, b) => a + b, 0) / costs.length, 3) ?? 0 };
}

/** The foundation's check: a currency page at offset 0 and at offset 5,000 within 10%. */
export function depthCheck(first: DepthCost, deep: DepthCost): Check {
  const within = (a: number, b: number) => Math.abs(b - a) <= 0.1 * a;
  return {
    check: `currency list read capacity, offset ${first.offset} vs ${deep.offset}, within 10% (mean of ${first.pages.length} pages from each)`,
    pass: within(first.mean, deep.mean),
    detail:
      `mean ${first.mean} vs ${deep.mean} RCU; the single pages at the two offsets: ${first.pages[0]} vs ${deep.pages[0]} RCU ` +
      `(each read rounds up to 4 KB, so one page moves with its bytes, not its depth)`,
  };
}
