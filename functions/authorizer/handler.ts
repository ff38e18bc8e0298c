/**
 * The authorizer's composition root: configuration read and validated once, the clients built
 * once. The key store hashes with the pepper: a value given in the environment (the local stack,
 * the tests, the scripts), or the SSM SecureString the environment names, read at the first
 * invocation and kept for the life of the instance (functions/authorizer/pepper.ts).
 */

import { type KeyLookup, KeyStore } from '../../shared/accounts/key-store';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/platform/dynamodb';
import { authorizerHandler } from './authorizer';
import { createSsmClient, pepperedKeyLookup, ssmPepper } from './pepper';

const config = readConfig(process.env);
const client = createDocumentClient(clientOptionsOf(config));

const store: KeyLookup =
  config.keyPepperParameter === undefined
    ? new KeyStore(client, config.tableName, config.keyPepper, systemClock)
    : pepperedKeyLookup(
        ssmPepper(createSsmClient(), config.keyPepperParameter),
        (pepper) => new KeyStore(client, config.tableName, pepper, systemClock),
      );

export const handler = authorizerHandler({ store, clock: systemClock });
