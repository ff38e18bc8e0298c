/**
 * The freshness function (functions/freshness/): every 5 minutes it reads when each family was
 * last published and writes the age as the `DataAgeSeconds` metric, which the DataAge alarms of
 * lib/constructs/monitoring.ts watch.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { DataTable } from './data-table';
import { type FunctionSettings, StackFunction } from './stack-function';

export interface FreshnessProps {
  entry: string;
  table: DataTable;
  settings: FunctionSettings;
  description: string;
}

const FRESHNESS_SCHEDULE = Duration.minutes(5);

export class Freshness extends Construct {
  readonly function: StackFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: FreshnessProps) {
    super(scope, id);
    this.function = new StackFunction(this, 'Function', {
      entry: props.entry,
      memorySize: 256,
      timeout: Duration.seconds(30),
      description: props.description,
      // The table's name only: it reads the pointer, without a cache.
      settings: props.settings,
    });
    props.table.grantReadPointer(this.function.fn);
    this.rule = new events.Rule(this, 'Schedule', {
      schedule: events.Schedule.rate(FRESHNESS_SCHEDULE),
      description: 'Writes the age of each family of served data (DataAgeSeconds)',
      // A missed run is one missing point; the next one comes 5 minutes later.
      targets: [new targets.LambdaFunction(this.function.fn, { retryAttempts: 0 })],
    });
  }
}
