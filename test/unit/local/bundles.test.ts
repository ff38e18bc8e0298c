/**
 * Loading the functions from a cloud assembly (local/bundles.ts), on a small assembly written
 * here: each function found by its construct, its handler file loaded with the template's
 * variables and the local ones over them, deploy-time references refused unless given locally.
 * .ci/run serves the real bundles of `npm run synth` to the black-box tests (LOCAL_BUNDLES).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { BUNDLED_FUNCTIONS, BundleError, loadBundles, readBundledStack } from '../../../local/bundles';

const NAMES = BUNDLED_FUNCTIONS as readonly string[];
const pascal = (name: string) => name[0].toUpperCase() + name.slice(1);

/** A bundle that reports the environment its module initialised with, as a composition root reads it. */
const bundleSource = (name: string) => `
const seen = { TABLE_NAME: process.env.TABLE_NAME, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
  RATE_LIMIT_PER_MINUTE: process.env.RATE_LIMIT_PER_MINUTE, KEY_PEPPER: process.env.KEY_PEPPER,
  KEY_PEPPER_PARAMETER: process.env.KEY_PEPPER_PARAMETER };
exports.main = async () => ({ statusCode: 200, headers: {}, body: JSON.stringify({ name: ${JSON.stringify(name)}, seen }) });
`;

interface AssemblyOptions {
  stacks?: string[];
  environment?: Record<string, unknown>;
  omit?: string;
}

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function assembly(options: AssemblyOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'assembly-'));
  dirs.push(dir);
  const stacks = options.stacks ?? ['MarketData-test'];
  const artifacts: Record<string, unknown> = { Tree: { type: 'cdk:tree' } };
  for (const stack of stacks) {
    artifacts[stack] = { type: 'aws:cloudformation:stack', properties: { templateFile: `${stack}.template.json` } };
    const resources: Record<string, unknown> = {
      // A function of the CDK's own (log retention, custom resources) is not one of the API's.
      LogRetentionFn: {
        Type: 'AWS::Lambda::Function',
        Properties: { Handler: 'index.handler' },
        Metadata: { 'aws:cdk:path': `${stack}/LogRetention/Resource` },
      },
    };
    for (const name of NAMES.filter((n) => n !== options.omit)) {
      const asset = `asset.${stack}-${name}`;
      mkdirSync(join(dir, asset));
      writeFileSync(join(dir, asset, 'entry.js'), bundleSource(name));
      resources[`${pascal(name)}FunctionABCD1234`] = {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Handler: 'entry.main',
          Environment: {
            Variables: {
              TABLE_NAME: { Ref: 'DataTable1234' },
              RATE_LIMIT_PER_MINUTE: '60',
              NODE_OPTIONS: '--enable-source-maps',
              ...options.environment,
            },
          },
        },
        Metadata: { 'aws:cdk:path': `${stack}/${pascal(name)}Function/Function/Resource`, 'aws:asset:path': asset },
      };
    }
    writeFileSync(join(dir, `${stack}.template.json`), JSON.stringify({ Resources: resources }));
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ version: '48.0.0', artifacts }));
  return dir;
}

const LOCAL = { TABLE_NAME: 'local-table', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' };
const bodyOf = async (handler: unknown) =>
  JSON.parse(((await (handler as () => Promise<{ body: string }>)()) as { body: string }).body);

describe('readBundledStack', () => {
  it("finds every function of the API by its construct, with its asset's handler file", () => {
    const dir = assembly();
    const stack = readBundledStack(dir);

    expect(stack.stackName).toBe('MarketData-test');
    expect(Object.keys(stack.functions).sort()).toEqual([...NAMES].sort());
    expect(stack.functions.history).toMatchObject({
      logicalId: 'HistoryFunctionABCD1234',
      file: join(dir, 'asset.MarketData-test-history', 'entry.js'),
      exportName: 'main',
    });
  });

  it('tells to synthesize first when there is no assembly', () => {
    expect(() => readBundledStack(join(tmpdir(), 'no-such-assembly'))).toThrow(/npm run synth/);
  });

  it('needs the stack named when the assembly holds several, and takes the named one', () => {
    const dir = assembly({ stacks: ['MarketData-dev', 'MarketData-prod'] });

    expect(() => readBundledStack(dir)).toThrow(/found MarketData-dev, MarketData-prod/);
    expect(readBundledStack(dir, 'MarketData-prod').functions.usage.file).toContain('asset.MarketData-prod-usage');
  });

  it('refuses an assembly without one of the functions', () => {
    expect(() => readBundledStack(assembly({ omit: 'usage' }))).toThrow(/no function for usage/);
  });
});

describe('loadBundles', () => {
  it("initialises each bundle with the template's variables, the local ones over its references", async () => {
    const realEnv = (runInThisContext('process') as NodeJS.Process).env;
    const before = realEnv.TABLE_NAME;
    const loaded = loadBundles(assembly(), LOCAL);

    const platforms = await bodyOf(loaded.handlers.platforms);
    expect(platforms).toEqual({
      name: 'platforms',
      seen: { TABLE_NAME: 'local-table', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', RATE_LIMIT_PER_MINUTE: '60' },
    });
    expect((await bodyOf(loaded.authorizer)).name).toBe('authorizer');
    expect((await bodyOf(loaded.docs)).name).toBe('docs');
    expect(loaded.environments.usage).toEqual({ ...LOCAL, RATE_LIMIT_PER_MINUTE: '60' });
    // The variables were the bundles' while they loaded, not left in this process.
    expect(realEnv.TABLE_NAME).toBe(before);
  });

  it('lets a local value win over a literal one of the template', async () => {
    const loaded = loadBundles(assembly(), { ...LOCAL, RATE_LIMIT_PER_MINUTE: '3' });

    expect((await bodyOf(loaded.handlers.offers)).seen.RATE_LIMIT_PER_MINUTE).toBe('3');
  });

  it('refuses a deploy-time reference without a local value, naming the variable', () => {
    const dir = assembly({ environment: { KEY_PEPPER: { 'Fn::GetAtt': ['PepperParameter', 'Value'] } } });

    expect(() => loadBundles(dir, LOCAL)).toThrow(BundleError);
    expect(() => loadBundles(dir, LOCAL)).toThrow(/KEY_PEPPER is a deploy-time reference/);
  });

  it('refuses the pepper parameter the deployed authorizer reads from SSM without a local pepper, and never passes its name on', async () => {
    const dir = assembly({ environment: { KEY_PEPPER_PARAMETER: '/market-data/prod/key-pepper' } });

    expect(() => loadBundles(dir, LOCAL)).toThrow(
      /KEY_PEPPER_PARAMETER names a parameter the function reads from AWS .*give KEY_PEPPER a local value/,
    );
    const { seen } = await bodyOf(loadBundles(dir, { ...LOCAL, KEY_PEPPER: 'local-pepper' }).authorizer);
    expect(seen.KEY_PEPPER).toBe('local-pepper');
    expect(seen.KEY_PEPPER_PARAMETER).toBeUndefined();
  });

  it('takes the local value of such a reference', async () => {
    const dir = assembly({ environment: { KEY_PEPPER: { 'Fn::GetAtt': ['PepperParameter', 'Value'] } } });

    expect((await bodyOf(loadBundles(dir, { ...LOCAL, KEY_PEPPER: 'local-pepper' }).authorizer)).seen.KEY_PEPPER).toBe(
      'local-pepper',
    );
  });
});
