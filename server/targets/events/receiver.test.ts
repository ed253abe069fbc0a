/**
 * Ferry's webhook endpoint against the real sandbox sending real, signed deliveries over HTTP to
 * the receiver on a random port, with a real database: a good delivery stored once, a bad
 * signature and an old timestamp refused with 401 and nothing stored, a replayed id and the
 * sandbox's duplicates stored once, an endpoint down and then the sandbox's replay.
 *
 * Runs on both databases: the inbox's insert-or-ignore and the target's counters.
 * @module-tag both-databases
 */
import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { targetEvents, webhookInbox } from "@/db/schema";
import { createServiceClient } from "@/server/service-client";
import { startEventsEndpoint, type EventsEndpoint } from "@/server/testing/events-endpoint";
import { engineTestBed } from "@/server/testing/test-bed";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { until } from "@/server/testing/until";
import type { ReadyEngagement } from "@/server/testing/ready-engagement";
import { listServiceTargets } from "../targets";
import { ensureEventConsumers } from "./consumers";
import { answerDeliveryRequest, EVENT_BODY_LIMIT } from "./receiver";

const bed = engineTestBed();
let endpoint: EventsEndpoint;
let eng: ReadyEngagement;
let engConsumer: { id: string; secret: string };

beforeAll(async () => {
  endpoint = await startEventsEndpoint({ database: bed.t.database, ring: TEST_KEY_RING });
  eng = await bed.ready([{ name: "Ash Accounts", records: 3 }]);
  const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
  const result = await ensureEventConsumers(
    { database: bed.t.database, ring: TEST_KEY_RING, client, defaultPublicUrl: endpoint.baseUrl, log: () => {} },
    { targetId: eng.serviceTargetId, engagementId: eng.engagementId, engagementTag: `ferryEngagement:${eng.engagementId}` },
  );
  expect(result).toBe("registered");
  const consumers = (await bed.sb.control.webhookConsumers()).results.filter((c) => c.url === `${endpoint.baseUrl}/api/targets/${eng.serviceTargetId}/events`);
  // One for the engagement's companies (its tag), one untagged for the client's rate-limit events.
  expect(consumers.map((c) => c.companyTags ?? []).sort()).toEqual([[], [`ferryEngagement:${eng.engagementId}`]]);
  engConsumer = consumers.find((c) => c.companyTags?.length)!;
});

afterAll(async () => {
  await bed.sb.control.setFaults({ webhookDuplicates: false, webhookWrongSignature: false });
  await endpoint.close();
});

const inbox = () => bed.t.db.select().from(webhookInbox).where(eq(webhookInbox.targetId, eng.serviceTargetId));
const state = async () => (await bed.t.db.select().from(targetEvents).where(eq(targetEvents.targetId, eng.serviceTargetId)))[0];

/** A company of the engagement (its tag) with a connection the sandbox's Link control links: one `connection.connected`. */
async function linkedCompany(name: string): Promise<{ companyId: string; connectionId: string }> {
  const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
  const company = await client.createCompany({ name, tags: { ferryEngagement: eng.engagementId } });
  const connection = await client.createConnection({ companyId: company.data.id, platformKey: eng.platformKey });
  await bed.sb.control.link(company.data.id, connection.data.id);
  return { companyId: company.data.id, connectionId: connection.data.id };
}

const eventsAbout = async (companyId: string) => (await inbox()).filter((r) => JSON.stringify(r.payload).includes(companyId));

/** POSTs a delivery to the endpoint as the service would, signed with `secret` at `at`. */
async function post(body: string, id: string, secret: string, at: Date): Promise<Response> {
  return fetch(`${endpoint.baseUrl}/api/targets/${eng.serviceTargetId}/events`, {
    method: "POST",
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(secret).sign(id, at, body) },
    body,
  });
}

describe("Ferry's webhook endpoint", () => {
  it("stores a good delivery once, answering 204; the same id again (a replay) is not stored twice", async () => {
    const { companyId } = await linkedCompany("Good Signature Ltd");
    const [row] = await until("the connected event", () => eventsAbout(companyId), (rows) => rows.length === 1, 15_000);
    expect(row).toMatchObject({ eventType: "connection.connected", processedAt: null, attempts: 0 });
    expect(row!.generatedAt).not.toBeNull();
    const body = JSON.stringify({ id: row!.messageId, eventType: row!.eventType, generatedDate: row!.generatedAt!.toISOString(), payload: row!.payload });
    const again = await post(body, row!.messageId, engConsumer.secret, new Date());
    expect(again.status).toBe(204);
    expect(await eventsAbout(companyId)).toHaveLength(1);
    expect((await state())!.lastEventType).toBe("connection.connected");
  }, 30_000);

  it("refuses a wrong signature and an old timestamp with 401, storing nothing but the refusal's count", async () => {
    const before = (await inbox()).length;
    const failures = (await state())?.failures ?? 0;
    await bed.sb.control.setFaults({ webhookWrongSignature: true });
    const { companyId } = await linkedCompany("Wrong Signature Ltd");
    const refused = await until("the refusal", state, (s) => (s?.failures ?? 0) > failures, 15_000);
    expect(refused!.lastFailure).toMatch(/signature matches none/);
    await bed.sb.control.setFaults({ webhookWrongSignature: false });
    expect(await eventsAbout(companyId)).toHaveLength(0);

    const body = JSON.stringify({ id: "msg_old", eventType: "connection.connected", generatedDate: new Date().toISOString(), payload: { referenceCompany: { id: "x", tags: {} } } });
    const old = await post(body, "msg_old", engConsumer.secret, new Date(Date.now() - 10 * 60_000));
    expect(old.status).toBe(401);
    expect(await old.text()).toMatch(/too old/);
    const unsigned = await fetch(`${endpoint.baseUrl}/api/targets/${eng.serviceTargetId}/events`, { method: "POST", body });
    expect(unsigned.status).toBe(401);
    // The sandbox's own delivery of the refused event is still pending a retry: nothing stored yet.
    expect((await inbox()).length).toBe(before);
    expect((await state())!.failures).toBe(failures + 3);
  }, 30_000);

  it("refuses a body over 1 MB with 413 and stores nothing: by its declared length unread, and sent in chunks without one, read no further than the limit", async () => {
    const before = (await inbox()).length;
    const failures = (await state())?.failures ?? 0;
    // A signed envelope padded to 3 MB: were it read whole, it would verify and be stored.
    const id = "msg_too_large";
    const at = new Date();
    const body = JSON.stringify({ id, eventType: "connection.connected", generatedDate: at.toISOString(), payload: { referenceCompany: { id: "x", tags: {} }, padding: "x".repeat(3_000_000) } });
    const bytes = new TextEncoder().encode(body);
    const signing = { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(engConsumer.secret).sign(id, at, body) };
    const CHUNK = 64 * 1024;
    /** The body as a stream of 64 KB chunks, counting how many were read. */
    const streamed = () => {
      const read = { chunks: 0 };
      const stream = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            const from = read.chunks * CHUNK;
            if (from >= bytes.length) return controller.close();
            read.chunks += 1;
            controller.enqueue(bytes.subarray(from, from + CHUNK));
          },
        },
        { highWaterMark: 0 },
      );
      return { read, stream };
    };
    const request = (headers: Record<string, string>, stream: ReadableStream<Uint8Array>) =>
      new Request(`${endpoint.baseUrl}/api/targets/${eng.serviceTargetId}/events`, { method: "POST", headers: { ...signing, ...headers }, body: stream, duplex: "half" } as RequestInit);
    const answer = (req: Request) => answerDeliveryRequest(bed.t.database, TEST_KEY_RING, eng.serviceTargetId, req);

    const declared = streamed();
    const byLength = await answer(request({ "content-length": String(bytes.length) }, declared.stream));
    expect(byLength.status).toBe(413);
    expect(await byLength.text()).toMatch(/^Too large: an event is at most 1 MB/);
    expect(declared.read.chunks).toBe(0);

    const chunked = streamed();
    const inChunks = await answer(request({}, chunked.stream));
    expect(inChunks.status).toBe(413);
    expect(chunked.read.chunks).toBe(Math.ceil((EVENT_BODY_LIMIT + 1) / CHUNK));
    expect(chunked.read.chunks * CHUNK).toBeLessThan(bytes.length / 2);

    // Nothing stored, and no refusal counted (it was never verified).
    expect((await inbox()).length).toBe(before);
    expect((await state())?.failures ?? 0).toBe(failures);
  });

  it("stores the sandbox's duplicate deliveries once", async () => {
    await bed.sb.control.setFaults({ webhookDuplicates: true });
    const answered = endpoint.answers.get(204) ?? 0;
    const { companyId } = await linkedCompany("Twice Told Ltd");
    await until("both deliveries", async () => endpoint.answers.get(204) ?? 0, (n) => n >= answered + 2, 15_000);
    await bed.sb.control.setFaults({ webhookDuplicates: false });
    expect(await eventsAbout(companyId)).toHaveLength(1);
  }, 30_000);

  it("gets what it missed while down from the sandbox's replay, each message once", async () => {
    await endpoint.down();
    const { companyId, connectionId } = await linkedCompany("Down Time Ltd");
    await bed.sb.control.deauthorize(companyId, connectionId, { reason: "revoked" });
    const pending = async () => (await bed.sb.control.webhookDeliveries(engConsumer.id)).results.filter((d) => d.status !== "delivered");
    // Every attempt fails (connection refused): the sandbox's schedule runs out on its clock (about 28 h).
    for (let hop = 0; hop < 10; hop++) {
      const now = await pending();
      if (now.length >= 2 && now.every((d) => d.status === "failed")) break;
      const attempts = now.reduce((n, d) => n + d.attempts, 0);
      await bed.sb.control.advanceClock({ seconds: 11 * 3600 });
      await until("the next attempts", pending, (ds) => ds.reduce((n, d) => n + d.attempts, 0) > attempts || ds.every((d) => d.status === "failed"), 15_000);
    }
    expect((await pending()).filter((d) => d.status === "failed").length).toBeGreaterThanOrEqual(2);
    expect(await eventsAbout(companyId)).toHaveLength(0);
    await endpoint.up();
    const replay = await bed.sb.control.replayWebhooks(engConsumer.id);
    expect(replay.replayed).toBeGreaterThanOrEqual(2);
    const rows = await until("the replayed events", () => eventsAbout(companyId), (r) => r.length === 2, 15_000);
    expect(rows.map((r) => r.eventType).sort()).toEqual(["connection.connected", "connection.disconnected"]);
    // Replayed again: the same ids, nothing new.
    await bed.sb.control.replayWebhooks(engConsumer.id);
    await until("replay delivered", pending, (ds) => ds.length === 0, 15_000).catch(() => {});
    expect(await bed.t.db.select().from(webhookInbox).where(and(eq(webhookInbox.targetId, eng.serviceTargetId), eq(webhookInbox.eventType, "connection.disconnected")))).toHaveLength(1);
  }, 90_000);

  it("shows on the target's page whether events arrive: its consumers, the last event, the refusals (never a secret)", async () => {
    const [view] = (await listServiceTargets(bed.t.database)).filter((t) => t.id === eng.serviceTargetId);
    expect(view!.events).toMatchObject({ consumers: 2, lastEventType: expect.stringMatching(/^connection\./), failures: 3, pausedUntil: null });
    expect(view!.events.lastEventAt).toBeInstanceOf(Date);
    expect(view!.events.lastFailure).toMatch(/refused/);
    expect(JSON.stringify(view)).not.toContain(engConsumer.secret);
  });
});
