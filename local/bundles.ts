/**
 * The functions as deployed: the bundles `cdk synth` wrote to `cdk.out`, found through the cloud
 * assembly's manifest and the stack's template (each function's asset directory and handler),
 * loaded with the environment variables the template gives them, the deploy-time references
 * among them (the table's name) and the pepper's parameter replaced by the local stack's values. The
 * local stack serves these instead of the TypeScript sources with `npm start -- --bundles`
 * (docs/architecture.md, "Testing what deploys").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runInThisContext } from 'node:vm';
import type { ApiEvent, ApiResult } from '../shared/http/http';
import { FUNCTION_NAMES, type FunctionName } from '../shared/http/routes';
import { ENV } from '../shared/platform/config';
import type { Authorizer, FamilyHandler } from './gateway';
import { installLambdaRuntime } from './lambda-streaming';

/**
 * The functions of the stack, by the name of their construct (`PlatformsFunction` → `platforms`).
 * @internal (exported for its tests)
 */
export const BUNDLED_FUNCTIONS = [...FUNCTION_NAMES, 'authorizer', 'docs'] as const;
type BundledFunctionName = (typeof BUNDLED_FUNCTIONS)[number];

interface BundledFunction {
  name: BundledFunctionName;
  /** The CloudFormation logical id of the function. */
  logicalId: string;
  /** The asset directory in the cloud assembly and the file the handler setting names. */
  assetDir: string;
  file: string;
  exportName: string;
  /** The variables of the template: strings as deployed, or the CloudFormation expression. */
  environment: Record<string, unknown>;
}

interface BundledStack {
  stackName: string;
  functions: Record<BundledFunctionName, BundledFunction>;
}

interface LoadedBundles {
  stackName: string;
  handlers: Record<FunctionName, FamilyHandler>;
  authorizer: Authorizer;
  docs: (event: ApiEvent) => Promise<ApiResult>;
  /** The environment each bundle was loaded with (what the stack sets, resolved locally). */
  environments: Record<BundledFunctionName, Record<string, string>>;
}

export class BundleError extends Error {}

interface Manifest {
  artifacts?: Record<string, { type: string; displayName?: string; properties?: { templateFile?: string } }>;
}

interface TemplateResource {
  Type: string;
  Properties?: { Handler?: string; Environment?: { Variables?: Record<string, unknown> } };
  Metadata?: Record<string, unknown>;
}

function readJson<T>(file: string, what: string): T {
  if (!existsSync(file)) throw new BundleError(`${what} not found: ${file} (run \`npm run synth\` first)`);
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/**
 * The functions of the (only, or the named) stack of a cloud assembly.
 * @internal (exported for its tests)
 */
export function readBundledStack(cdkOut: string, stackName?: string): BundledStack {
  const dir = resolve(cdkOut);
  const manifest = readJson<Manifest>(join(dir, 'manifest.json'), 'cloud assembly manifest');
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(([, a]) => a.type === 'aws:cloudformation:stack');
  const chosen = stackName ? stacks.filter(([id]) => id === stackName) : stacks;
  if (chosen.length !== 1) {
    throw new BundleError(
      `${dir}: expected ${stackName ? `stack ${stackName}` : 'one stack'}, found ${stacks.map(([id]) => id).join(', ') || 'none'}`,
    );
  }
  const [id, artifact] = chosen[0];
  const template = readJson<{ Resources?: Record<string, TemplateResource> }>(
    join(dir, artifact.properties?.templateFile ?? `${id}.template.json`),
    'stack template',
  );

  const functions: Partial<Record<BundledFunctionName, BundledFunction>> = {};
  for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const cdkPath = String(resource.Metadata?.['aws:cdk:path'] ?? '');
    const construct = /^[^/]+\/([A-Za-z]+)Function\/Function\/Resource$/.exec(cdkPath)?.[1];
    const name = construct && construct[0].toLowerCase() + construct.slice(1);
    if (!name || !(BUNDLED_FUNCTIONS as readonly string[]).includes(name)) continue;
    const asset = resource.Metadata?.['aws:asset:path'];
    const handler = resource.Properties?.Handler;
    if (typeof asset !== 'string' || !handler)
      throw new BundleError(`${logicalId}: no bundled asset in the template (was bundling skipped?)`);
    const dot = handler.lastIndexOf('.');
    const assetDir = join(dir, asset);
    const file = join(assetDir, `${handler.slice(0, dot)}.js`);
    if (!existsSync(file)) throw new BundleError(`${logicalId}: ${file} is missing`);
    functions[name as BundledFunctionName] = {
      name: name as BundledFunctionName,
      logicalId,
      assetDir,
      file,
      exportName: handler.slice(dot + 1),
      environment: resource.Properties?.Environment?.Variables ?? {},
    };
  }
  const missing = BUNDLED_FUNCTIONS.filter((name) => !functions[name]);
  if (missing.length > 0) throw new BundleError(`${id}: no function for ${missing.join(', ')} in the template`);
  return { stackName: id, functions: functions as Record<BundledFunctionName, BundledFunction> };
}

/**
 * Variables that name something a deployed function reads from AWS when it starts (the pepper's
 * SSM SecureString), each with the variable that gives the value locally instead: the local stack
 * reaches no AWS account.
 */
const READ_FROM_AWS: Record<string, string> = { [ENV.keyPepperParameter]: ENV.keyPepper };

/**
 * The variables a bundle runs with: the template's, with `local` (the embedded DynamoDB's
 * endpoint, the table's local name, the caller's overrides) over them. A deploy-time reference
 * (`Ref`, `Fn::…`), or the name of a parameter the function would read from AWS (the pepper's),
 * without a local value is an error, never an object passed on as a string or a call to AWS.
 * NODE_OPTIONS is for a new process; a bundle loaded here gets its source maps another way.
 */
function bundleEnvironment(fn: BundledFunction, local: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    if (name === 'NODE_OPTIONS' || name in local) continue;
    const standIn = READ_FROM_AWS[name];
    if (standIn !== undefined) {
      if (local[standIn] === undefined) {
        throw new BundleError(
          `${fn.name}: ${name} names a parameter the function reads from AWS (${JSON.stringify(value)}); give ${standIn} a local value`,
        );
      }
      continue;
    }
    if (typeof value !== 'string') {
      throw new BundleError(
        `${fn.name}: ${name} is a deploy-time reference (${JSON.stringify(value)}); give it a local value`,
      );
    }
    env[name] = value;
  }
  return { ...env, ...local };
}

/**
 * Node's own process and module loader, even under a test runner that sandboxes both (jest gives
 * each test file its own `process`, `require` and `process.env`, and no dynamic `import()`): a
 * bundle runs untransformed in Node's main realm, reading its real environment, as Lambda's
 * runtime runs it. `runInThisContext` evaluates in that realm, whoever calls it.
 */
const nodeProcess = runInThisContext('process') as NodeJS.Process;
const nodeRequire = nodeProcess.getBuiltinModule('node:module').createRequire(__filename);

/**
 * Settings of the caller a bundle keeps (from a sandboxed `process.env` too): this machine may run
 * an older Node than the runtime the bundle targets, and the SDK's notice about it is noise here.
 */
const CARRIED = ['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'];

/** `require` a bundle with `env` in process.env while its module initialises (its composition root reads it then). */
function loadWith(fn: BundledFunction, bundleEnv: Record<string, string>): unknown {
  const carried = Object.fromEntries(
    CARRIED.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]!]),
  );
  const env = { ...carried, ...bundleEnv };
  const processEnv = nodeProcess.env;
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, processEnv[name]]));
  Object.assign(processEnv, env);
  try {
    // A fresh module each time: another stack in this process has another endpoint.
    delete nodeRequire.cache[fn.file];
    const loaded = (nodeRequire(fn.file) as Record<string, unknown>)[fn.exportName];
    delete nodeRequire.cache[fn.file];
    if (typeof loaded !== 'function') throw new BundleError(`${fn.file} exports no function ${fn.exportName}`);
    return loaded;
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete processEnv[name];
      else processEnv[name] = value;
    }
  }
}

/** Every function of the stack from its bundle, configured with `local` over the template's variables. */
export function loadBundles(cdkOut: string, local: Record<string, string>, stackName?: string): LoadedBundles {
  const stack = readBundledStack(cdkOut, stackName);
  // A streamed function calls awslambda.streamifyResponse as its module initialises.
  installLambdaRuntime();
  const environments = {} as LoadedBundles['environments'];
  const loaded = {} as Record<BundledFunctionName, unknown>;
  for (const name of BUNDLED_FUNCTIONS) {
    const fn = stack.functions[name];
    environments[name] = bundleEnvironment(fn, local);
    if (String(fn.environment.NODE_OPTIONS ?? '').includes('--enable-source-maps'))
      nodeProcess.setSourceMapsEnabled(true);
    loaded[name] = loadWith(fn, environments[name]);
  }
  return {
    stackName: stack.stackName,
    handlers: Object.fromEntries(FUNCTION_NAMES.map((name) => [name, loaded[name]])) as Record<
      FunctionName,
      FamilyHandler
    >,
    authorizer: loaded.authorizer as Authorizer,
    docs: loaded.docs as LoadedBundles['docs'],
    environments,
  };
}
