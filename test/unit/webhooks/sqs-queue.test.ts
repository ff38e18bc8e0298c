/**
 * The deployed delivery queue: batches of 10, a delay of at most SQS's 900 s (a longer wait is
 * taken in hops by the sending handler), refused entries sent again; a message body read back.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { parseDeliveryMessage, SqsDeliveryQueue } from '../../../shared/webhooks/sqs-queue';

const sqs = mockClient(SQSClient);
const URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks';
const message = (i: number) => ({
  subscriptionId: 'wh_0123456789abcdef0123',
  family: 'earn' as const,
  deliveryId: `msg_${i}`,
});

beforeEach(() => sqs.reset());

describe('SqsDeliveryQueue', () => {
  it('sends in batches of 10, each held back at most 900 s', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const queue = new SqsDeliveryQueue(new SQSClient({}), URL);
    await queue.send(
      Array.from({ length: 23 }, (_, i) => message(i)),
      7200,
    );
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries?.length)).toEqual([10, 10, 3]);
    expect(new Set(calls.flatMap((c) => c.Entries!.map((e) => e.DelaySeconds)))).toEqual(new Set([900]));
    expect(JSON.parse(calls[2].Entries![2].MessageBody!)).toEqual(message(22));
    expect(queue.maxDelaySeconds).toBe(900);
  });

  it('sends refused entries again, and gives up after five tries', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: '1', Code: 'x', SenderFault: false }] })
      .resolves({ Failed: [] });
    await new SqsDeliveryQueue(new SQSClient({}), URL).send([message(0), message(1)], 0);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries!.map((e) => JSON.parse(e.MessageBody!).deliveryId))).toEqual([
      ['msg_0', 'msg_1'],
      ['msg_1'],
    ]);
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Failed: [{ Id: '0', Code: 'x', SenderFault: false }] });
    await expect(new SqsDeliveryQueue(new SQSClient({}), URL).send([message(0)], 0)).rejects.toThrow(/refused 1/);
  });

  it('reads back only the messages matching wrote', () => {
    expect(parseDeliveryMessage(JSON.stringify(message(3)))).toEqual(message(3));
    expect(parseDeliveryMessage('{"subscriptionId":"wh_x","family":"loans","deliveryId":"m"}')).toBeUndefined();
    expect(parseDeliveryMessage('not json')).toBeUndefined();
  });
});
