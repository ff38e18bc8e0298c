/** The authorizer's composition root: configuration read and validated once, the key store built once. */
import { readConfig } from '../../shared/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/dynamodb';
import { KeyStore } from '../../shared/repositories/key-store';
import { authorizerHandler } from './authorizer';

const config = readConfig(process.env);

export const handler = authorizerHandler({ store: new KeyStore(createDocumentClient(clientOptionsOf(config)), config.tableName, config.keyPepper) });
