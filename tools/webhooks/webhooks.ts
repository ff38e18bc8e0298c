/**
 * The commands of `npm run webhooks` (scripts/webhooks.ts is the entry, with the usage): the command
 * line parsed and checked, and each command run on the webhook store (shared/data/webhook-store.ts)
 * through shared/webhooks/manage.ts. A secret is printed once, by `create` and `rotate-secret`, and
 * nowhere else; nothing here logs one.
 */
import type { SubscriptionItem, WebhookStore } from '../../shared/data/webhook-store';
import { WebhookLimitError } from '../../shared/data/webhook-store';
import { OFFER_FAMILIES } from '../../shared/model/offer-families';
import { USER_ID_PATTERN, USER_ID_RULE } from '../../shared/platform/account-rules';
import { ValidationError } from '../../shared/platform/errors';
import { createSubscription } from '../../shared/webhooks/manage';
import { generateWebhookSecret, type TargetRule, WEBHOOK_ID_PATTERN } from '../../shared/webhooks/subscription';
import type { Lookup } from '../../shared/webhooks/target';
import {
  parseCommandLine as parseCommandLineOf,
  TABLE_OPTIONS,
  type TableConnection,
  tableConnection,
  targetRuleOf,
  UsageError,
} from '../cli';

const USAGE = `usage: npm run webhooks -- COMMAND [options]
  create        --user ID --url URL --family ${OFFER_FAMILIES.join('|')} [--filter QUERY] [--events LIST]
                [--apy-change D] [--apy-above X] [--apy-below X] [--availability]
  list          --user ID
  remove        --user ID --id WEBHOOK_ID
  enable        --user ID --id WEBHOOK_ID
  rotate-secret --user ID --id WEBHOOK_ID
options: --table NAME  --endpoint URL (the local stack's: its target rule, loopback only)  --region REGION`;

type Command = 'create' | 'list' | 'remove' | 'enable' | 'rotate-secret';

const COMMAND_OPTIONS: Record<Command, { required: string[]; optional: string[] }> = {
  create: {
    required: ['user', 'url', 'family'],
    optional: ['filter', 'events', 'apy-change', 'apy-above', 'apy-below', 'availability'],
  },
  list: { required: ['user'], optional: [] },
  remove: { required: ['user', 'id'], optional: [] },
  enable: { required: ['user', 'id'], optional: [] },
  'rotate-secret': { required: ['user', 'id'], optional: [] },
};

const OPTIONS = {
  user: { type: 'string' },
  id: { type: 'string' },
  url: { type: 'string' },
  family: { type: 'string' },
  filter: { type: 'string' },
  events: { type: 'string' },
  'apy-change': { type: 'string' },
  'apy-above': { type: 'string' },
  'apy-below': { type: 'string' },
  availability: { type: 'boolean' },
  ...TABLE_OPTIONS,
} as const;

export interface Connection extends TableConnection {
  /** The target rule of the table's stage: an endpoint is the local stack's. */
  rule: TargetRule;
}

export type Invocation =
  | { command: 'create'; userId: string; input: Record<string, unknown> }
  | { command: 'list'; userId: string }
  | { command: Exclude<Command, 'create' | 'list'>; userId: string; id: string };

export function parseCommandLine(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { invocation: Invocation; connection: Connection } {
  const { command, values } = parseCommandLineOf(argv, {
    usage: USAGE,
    options: OPTIONS,
    commands: COMMAND_OPTIONS,
    shared: Object.keys(TABLE_OPTIONS),
    nonEmpty: ['user', 'id', 'url', 'family', 'table', 'endpoint', 'region'],
  });
  const userId = values.user!;
  if (!USER_ID_PATTERN.test(userId)) throw new UsageError(`--user ${USER_ID_RULE}, got "${userId.slice(0, 140)}"`);
  if (values.id !== undefined && !WEBHOOK_ID_PATTERN.test(values.id))
    throw new UsageError(
      `--id must be a subscription id such as wh_0123456789abcdef0123, got "${values.id.slice(0, 64)}"`,
    );

  let invocation: Invocation;
  if (command === 'create') {
    const conditions = {
      ...(values['apy-change'] !== undefined ? { apy_change: values['apy-change'] } : {}),
      ...(values['apy-above'] !== undefined ? { apy_above: values['apy-above'] } : {}),
      ...(values['apy-below'] !== undefined ? { apy_below: values['apy-below'] } : {}),
      ...(values.availability ? { availability: true } : {}),
    };
    invocation = {
      command,
      userId,
      input: {
        url: values.url,
        family: values.family,
        filter: values.filter ?? '',
        ...(values.events !== undefined ? { events: values.events.split(',') } : {}),
        conditions,
      },
    };
  } else if (command === 'list') invocation = { command, userId };
  else invocation = { command, userId, id: values.id! };
  return {
    invocation,
    connection: { ...tableConnection(values, env), rule: targetRuleOf(values) },
  };
}

function describe(s: SubscriptionItem): string[] {
  const conditions = Object.entries(s.conditions)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  return [
    `${s.id}  ${s.status}${s.disabledReason ? ` (${s.disabledReason})` : ''}  ${s.family}  ${s.url}`,
    `  filter: ${s.filter || '(every offer)'}  events: ${s.events.join(',')}  conditions: ${conditions || '(none)'}`,
    `  created ${s.createdAt}, last success ${s.lastSuccessAt ?? 'never'}, last failure ${s.lastFailureAt ?? 'never'}`,
  ];
}

const notFound = (userId: string, id: string) => new Error(`user "${userId}" has no webhook subscription ${id}`);

export interface RunOptions {
  rule: TargetRule;
  now: Date;
  lookup?: Lookup;
}

export async function run(
  invocation: Invocation,
  store: WebhookStore,
  print: (line: string) => void,
  options: RunOptions,
): Promise<void> {
  const { userId } = invocation;
  switch (invocation.command) {
    case 'create': {
      let created;
      try {
        created = await createSubscription(store, userId, invocation.input, options);
      } catch (error) {
        if (error instanceof ValidationError)
          throw new UsageError(
            `refused, nothing written:\n${((error.details?.message as string[] | undefined) ?? []).join('\n')}`,
          );
        if (error instanceof WebhookLimitError) throw new UsageError(`refused: ${error.message}`);
        throw error;
      }
      print(`created webhook subscription for user ${userId}:`);
      describe(created.subscription).forEach((line) => print(line));
      print('signing secret (shown once; verify deliveries with it, Standard Webhooks):');
      print(created.secret);
      return;
    }
    case 'list': {
      const subscriptions = await store.listForUser(userId);
      if (subscriptions.length === 0) print(`user ${userId} has no webhook subscriptions`);
      for (const s of subscriptions) describe(s).forEach((line) => print(line));
      return;
    }
    case 'remove':
      if (!(await store.remove(userId, invocation.id))) throw notFound(userId, invocation.id);
      print(`removed webhook subscription ${invocation.id} of user ${userId}`);
      return;
    case 'enable': {
      const enabled = await store.enable(userId, invocation.id);
      if (!enabled) throw notFound(userId, invocation.id);
      print(`enabled webhook subscription ${invocation.id}: it is sent what is published from now on`);
      return;
    }
    case 'rotate-secret': {
      const secret = generateWebhookSecret();
      if (!(await store.rotateSecret(userId, invocation.id, secret))) throw notFound(userId, invocation.id);
      print(`new signing secret of ${invocation.id} (shown once; the old one no longer signs):`);
      print(secret);
      return;
    }
  }
}
