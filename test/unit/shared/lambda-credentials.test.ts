/**
 * The credential provider the bundles have in place of the SDK's default chain
 * (shared/lambda-credentials.ts): the environment's credentials, or the SDK's refusal.
 */
import { defaultProvider } from '../../../shared/lambda-credentials';

const VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION', 'AWS_PROFILE'] as const;
let saved: Record<string, string | undefined>;

// The provider reads process.env itself, as it does in Lambda: set it, and put it back after.
beforeEach(() => {
  saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) delete process.env[name];
});
afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('defaultProvider', () => {
  it('returns the credentials of the environment, the session token included', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret-example';
    process.env.AWS_SESSION_TOKEN = 'session-example';

    const credentials = await defaultProvider()();

    expect(credentials).toMatchObject({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example', sessionToken: 'session-example' });
  });

  it("rejects with the SDK's CredentialsProviderError without them, and follows no profile", async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_PROFILE = 'default';

    await expect(defaultProvider()()).rejects.toMatchObject({
      name: 'CredentialsProviderError',
      message: 'Unable to find environment variable credentials.',
    });
  });
});
