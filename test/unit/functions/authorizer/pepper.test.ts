/**
 * The deployed authorizer's pepper (functions/authorizer/pepper.ts): the SSM SecureString read
 * with decryption once per instance and shared by concurrent first requests, a failed read not
 * kept (that request fails closed, the next one reads again), and the keys hashed with it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { authorize } from '../../../../functions/authorizer/authorizer';
import { pepperedKeyLookup, ssmPepper } from '../../../../functions/authorizer/pepper';
import { hashKey, KeyStore } from '../../../../shared/accounts/key-store';
import { apiKeyKey, userKey } from '../../../../shared/data/keys';
import { readConfig } from '../../../../shared/platform/config';
import { setLogSink } from '../../../../shared/platform/logger';

const ssm = mockClient(SSMClient);
const ddb = mockClient(DynamoDBDocumentClient);
const PARAMETER = '/market-data/prod/key-pepper';
const PEPPER = 'pepper-from-ssm';
const NOW = new Date('2026-06-15T12:00:00.000Z');
const KEY = 'test_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/exchanges';
const event = {
  type: 'TOKEN',
  authorizationToken: `Bearer ${KEY}`,
  methodArn: METHOD_ARN,
} as APIGatewayTokenAuthorizerEvent;

const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const lookup = () =>
  pepperedKeyLookup(
    ssmPepper(new SSMClient({ region: 'eu-west-1' }), PARAMETER),
    (pepper) => new KeyStore(documentClient, 't', pepper, () => NOW),
  );

beforeEach(() => {
  ssm.reset();
  ddb.reset();
  setLogSink(() => undefined);
  ddb.on(GetCommand, { Key: apiKeyKey(hashKey(KEY, PEPPER)) }).resolves({
    Item: {
      ...apiKeyKey(hashKey(KEY, PEPPER)),
      keyId: 'k_0000000000000001',
      userId: 'u1',
      revoked: false,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  });
  ddb
    .on(GetCommand, { Key: userKey('u1') })
    .resolves({ Item: { ...userKey('u1'), userId: 'u1', premium: true, premiumUntil: null } });
});

it('reads the SecureString with decryption once, for concurrent and later requests alike, and hashes keys with it', async () => {
  ssm.on(GetParameterCommand).resolves({ Parameter: { Name: PARAMETER, Type: 'SecureString', Value: PEPPER } });
  const store = lookup();

  const answers = await Promise.all([
    authorize(event, { store, clock: () => NOW }),
    authorize(event, { store, clock: () => NOW }),
  ]);
  answers.push(await authorize(event, { store, clock: () => NOW }));

  expect(answers.map((a) => a.policyDocument.Statement[0].Effect)).toEqual(['Allow', 'Allow', 'Allow']);
  expect(ssm.commandCalls(GetParameterCommand).map((call) => call.args[0].input)).toEqual([
    { Name: PARAMETER, WithDecryption: true },
  ]);
  expect(ddb.commandCalls(GetCommand)[0].args[0].input.Key).toEqual(apiKeyKey(hashKey(KEY, PEPPER)));
});

it('fails closed while the parameter cannot be read, and reads it again on the next request', async () => {
  ssm
    .on(GetParameterCommand)
    .rejectsOnce(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }))
    .resolves({ Parameter: { Name: PARAMETER, Type: 'SecureString', Value: PEPPER } });
  const store = lookup();

  await expect(authorize(event, { store, clock: () => NOW })).rejects.toThrow('Authorizer failure');
  expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  expect((await authorize(event, { store, clock: () => NOW })).policyDocument.Statement[0].Effect).toBe('Allow');
  expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
});

it('never takes an empty parameter for "no pepper"', async () => {
  ssm.on(GetParameterCommand).resolves({ Parameter: { Name: PARAMETER, Type: 'SecureString', Value: '' } });

  await expect(authorize(event, { store: lookup(), clock: () => NOW })).rejects.toThrow('Authorizer failure');
  expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
});

it('is configured by the pepper or by the name of its parameter, never both', () => {
  expect(readConfig({ TABLE_NAME: 't', KEY_PEPPER_PARAMETER: PARAMETER })).toMatchObject({
    keyPepper: '',
    keyPepperParameter: PARAMETER,
  });
  expect(readConfig({ TABLE_NAME: 't', KEY_PEPPER: 'p' })).toMatchObject({
    keyPepper: 'p',
    keyPepperParameter: undefined,
  });
  expect(() => readConfig({ TABLE_NAME: 't', KEY_PEPPER: 'p', KEY_PEPPER_PARAMETER: PARAMETER })).toThrow(
    /KEY_PEPPER and KEY_PEPPER_PARAMETER are exclusive/,
  );
});
