/**
 * The deployed delivery queue: batches of at most 10 messages and at most SQS's bytes, a delay of at
 * most SQS's 900 s (a longer wait is taken in hops by the sending handler), refused entries sent
 * again; a message (its head line and its body, byte for byte) read back.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { decodeDeliveryMessage, encodeDeliveryMessage, MESSAGE_MAX_BYTES } from '../../../shared/webhooks/queue';
import { SqsDeliveryQueue } from '../../../shared/webhooks/sqs-queue';

const sqs = mockClient(SQSClient);
const URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks';
const message = (i: number, body = `{"type":"offers.events","part":${i},"note":"a\\nb \\u00e9"}`) => ({
  subscriptionId: 'wh_0123456789abcdef0123',
  family: 'earn' as const,
  deliveryId: `msg_${i}`,
  body,
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
    expect(decodeDeliveryMessage(calls[2].Entries![2].MessageBody!)).toEqual(message(22));
    expect(queue.maxDelaySeconds).toBe(900);
  });

  it("keeps a batch's bytes within SQS's limit, and refuses a message over it", async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Failed: [] });
    const big = (i: number) => message(i, `{"events":"${'x'.repeat(100_000)}"}`);
    await new SqsDeliveryQueue(new SQSClient({}), URL).send([big(0), big(1), big(2), message(3)], 0);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    const sizes = calls.map((c) => c.Entries!.reduce((n, e) => n + Buffer.byteLength(e.MessageBody!), 0));
    expect(calls.map((c) => c.Entries!.length)).toEqual([2, 2]);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MESSAGE_MAX_BYTES);
    const huge = message(9, `"${'x'.repeat(MESSAGE_MAX_BYTES)}"`);
    await expect(new SqsDeliveryQueue(new SQSClient({}), URL).send([huge], 0)).rejects.toThrow(/over SQS's limit/);
  });

  it('sends refused entries again, and gives up after five tries', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: '1', Code: 'x', SenderFault: false }] })
      .resolves({ Failed: [] });
    await new SqsDeliveryQueue(new SQSClient({}), URL).send([message(0), message(1)], 0);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries!.map((e) => decodeDeliveryMessage(e.MessageBody!)?.deliveryId))).toEqual([
      ['msg_0', 'msg_1'],
      ['msg_1'],
    ]);
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Failed: [{ Id: '0', Code: 'x', SenderFault: false }] });
    await expect(new SqsDeliveryQueue(new SQSClient({}), URL).send([message(0)], 0)).rejects.toThrow(/refused 1/);
  });
});

describe('a delivery message', () => {
  it('is its head line then its body unescaped, read back byte for byte', () => {
    const text = encodeDeliveryMessage(message(3));
    expect(text.split('\n')[0]).toBe(
      '{"subscriptionId":"wh_0123456789abcdef0123","family":"earn","deliveryId":"msg_3"}',
    );
    expect(text.slice(text.indexOf('\n') + 1)).toBe(message(3).body);
    expect(decodeDeliveryMessage(text)).toEqual(message(3));
  });

  it('reads back only the messages matching wrote', () => {
    expect(decodeDeliveryMessage('{"subscriptionId":"wh_x","family":"loans","deliveryId":"m"}\n{}')).toBeUndefined();
    expect(decodeDeliveryMessage('{"subscriptionId":"wh_x","family":"earn","deliveryId":"m"}')).toBeUndefined();
    expect(decodeDeliveryMessage('not json\n{}')).toBeUndefined();
  });
});
