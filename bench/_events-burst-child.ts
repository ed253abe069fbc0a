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
  // Every delivery made and signed before the clock starts: the sender is the bench's apparatus,
  // and its signing should not take the receiver's share of the two cores while it is measured.
  // Timestamps are the send's second (a few seconds at most before it: well inside the 5-minute window).
  const at = new Date();
  const deliveries = Array.from({ length: total }, (_, i) => {
    let id: string;
    if (i % 10 === 9) id = ids[Math.floor(Math.random() * ids.length)]!;
    else {
      id = `msg_${randomUUID()}`;
      ids.push(id);
    }
    const body = JSON.stringify({ id, eventType: "read.completed", generatedDate: at.toISOString(), payload: { referenceCompany: { id: randomUUID(), tags: {} }, dataTypes: [] } });
    return { body, headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signer.sign(id, at, body) } };
  });
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const { body, headers } = deliveries[i]!;
    const sent = fetch(url, { dispatcher: agent, method: "POST", headers, body })
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
