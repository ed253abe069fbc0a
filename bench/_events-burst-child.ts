/**
 * The burst's sender for bench/events.ts, in a process of its own so that signing and sending do
 * not share an event loop with the receiver it measures: `RATE` signed deliveries a second for
 * `SECONDS`, every tenth one a duplicate of an earlier id, over kept-alive connections. Prints one
 * JSON line: the distinct ids sent, the deliveries sent, how long it took, and the answers by status.
 *
 * Args: URL SECRET RATE SECONDS
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Webhook } from "standardwebhooks";
import { Agent, fetch } from "undici";

async function main(): Promise<void> {
  const [url, secret, rateText, secondsText] = process.argv.slice(2);
  if (!url || !secret) throw new Error("usage: URL SECRET RATE SECONDS");
  const rate = Number(rateText ?? 1000);
  const total = rate * Number(secondsText ?? 5);
  const signer = new Webhook(secret);
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const ids: string[] = [];
  const statuses: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    let id: string;
    if (i % 10 === 9) id = ids[Math.floor(Math.random() * ids.length)]!;
    else {
      id = `msg_${randomUUID()}`;
      ids.push(id);
    }
    const now = new Date();
    const body = JSON.stringify({ id, eventType: "read.completed", generatedDate: now.toISOString(), payload: { referenceCompany: { id: randomUUID(), tags: {} }, dataTypes: [] } });
    const sent = fetch(url, {
      dispatcher: agent,
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signer.sign(id, now, body) },
      body,
    })
      .then(async (r) => {
        await r.arrayBuffer();
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      })
      .catch(() => {
        statuses.error = (statuses.error ?? 0) + 1;
      })
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  process.stdout.write(`${JSON.stringify({ ids, sent: total, seconds, statuses })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
