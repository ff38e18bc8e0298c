/**
 * A function of the API (the families, usage, the authorizer and the docs function): a
 * StackFunction (./stack-function.ts) with the API's runtime configuration in its environment, the
 * default budgets of a key, the pointer and read caches and the data status's staleness.
 */
import type { Construct } from 'constructs';
import { ENV } from '../../shared/platform/config';
import { type FunctionSettings, mergeEnvironment, StackFunction, type StackFunctionProps } from './stack-function';

export interface ApiFunctionDefaults extends FunctionSettings {
  ratePerMinute: number;
  quotaPerMonth: number;
  snapshotCacheMs: number;
  readCacheMb: number;
  /** `stale` of GET /api/v1/status after this long without a refresh. */
  dataMaxAgeSeconds: number;
}

export interface ApiFunctionProps extends Omit<StackFunctionProps, 'settings'> {
  defaults: ApiFunctionDefaults;
}

export class ApiFunction extends StackFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const { defaults, ...rest } = props;
    super(scope, id, {
      ...rest,
      settings: defaults,
      environment: mergeEnvironment(apiEnvironment(defaults), props.environment),
    });
  }
}

function apiEnvironment(defaults: ApiFunctionDefaults): Record<string, string> {
  return {
    [ENV.ratePerMinute]: String(defaults.ratePerMinute),
    [ENV.quotaPerMonth]: String(defaults.quotaPerMonth),
    [ENV.snapshotCacheMs]: String(defaults.snapshotCacheMs),
    [ENV.readCacheMb]: String(defaults.readCacheMb),
    [ENV.dataMaxAgeSeconds]: String(defaults.dataMaxAgeSeconds),
  };
}
