/**
 * A webhook receiver (docs/api.md, "Webhooks"): an HTTP server that checks each delivery's Standard
 * Webhooks signature with the `standardwebhooks` package and prints its events, one line each.
 * A delivery whose signature does not verify is answered 401 and printed as refused; one that does,
 * 204 (any 2xx within 10 s counts as delivered; anything else is retried).
 *
 * Usage (the local stack sends only to 127.0.0.1 or localhost):
 *   npx tsx examples/webhook-receiver.ts --port 4000 --secret whsec_…
 *   npm run webhooks -- create --user demo --url http://127.0.0.1:4000/hooks --family earn \
 *     --apy-change 0.5 --endpoint http://127.0.0.1:PORT --table market-data-local
 *
 * The secret may come from WEBHOOK_SECRET instead of --secret.
 */
import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

interface OffersEvents {
  subscription: string;
  family: string;
  snapshot: string;
  part: number;
  parts: number;
  events: { type: string; offer_id: number; reasons: string[]; apy?: { from: string | null; to: string | null } }[];
}

/** One printed line per event of a verified delivery. */
export function describeDelivery(id: string, body: OffersEvents): string[] {
  return body.events.map((event) => {
    const apy = event.apy ? ` apy ${event.apy.from ?? '-'} → ${event.apy.to ?? '-'}` : '';
    const reasons = event.reasons.length > 0 ? ` (${event.reasons.join(', ')})` : '';
    return `${id} ${body.family} ${body.part}/${body.parts} ${event.type} offer ${event.offer_id}${apy}${reasons}`;
  });
}

/** The receiver: verifies with the secret, prints, answers 204 (or 401 when the signature is wrong). */
export function createReceiver(secret: string, print: (line: string) => void): Server {
  const webhook = new Webhook(secret);
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const payload = Buffer.concat(chunks).toString('utf8');
      try {
        const body = webhook.verify(payload, req.headers as Record<string, string>) as OffersEvents;
        for (const line of describeDelivery(String(req.headers['webhook-id']), body)) print(line);
        res.writeHead(204).end();
      } catch (error) {
        print(`refused a delivery: ${(error as Error).message}`);
        res.writeHead(401).end();
      }
    });
  });
}

if (require.main === module) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '4000' }, secret: { type: 'string' } } });
  const secret = values.secret ?? process.env.WEBHOOK_SECRET;
  if (!secret) {
    process.stderr.write('usage: npx tsx examples/webhook-receiver.ts --port 4000 --secret whsec_…\n');
    process.exit(2);
  }
  const server = createReceiver(secret, (line) => process.stdout.write(`${line}\n`));
  server.listen(Number(values.port), '127.0.0.1', () =>
    process.stdout.write(`receiving webhooks on http://127.0.0.1:${values.port}/ (Ctrl-C to stop)\n`),
  );
}
