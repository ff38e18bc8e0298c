/** Forget every module-level client, store and configuration (a new stack, a new table). */
import { resetConfig } from '../config';
import { setDocumentClient } from '../dynamodb';
import { resetApiHandlerState } from '../middleware/api-handler';
import { resetStores } from '../stores';

export function resetRuntime(): void {
  resetConfig();
  setDocumentClient(undefined);
  resetStores();
  resetApiHandlerState();
}
