/**
 * Webhooks against a real sandbox and a real HTTP receiver, both on random ports: consumers and
 * their validation, the events the sandbox's state changes make (signed, verified with the
 * `standardwebhooks` package as Ferry will), filtering by event type and company tag, the retry
 * schedule on the sandbox clock, disabling, replay, and the fault switches.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PlatformKey } from "../../platforms";
import { call, createCompany, createConnection, str, UUID } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";
import { until } from "../../testing/until";

type Received = { id: string; headers: Record<string, string>; body: string; json: { id: string; eventType: string; generatedDate: string; payload: Record<string, unknown> } };

type Receiver = { url: string; received: Received[]; status: number; close(): Promise<void> };

/** An HTTP server that keeps every POST it gets and answers `status`. */
async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: "", received: [], status: 200, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
      receiver.received.push({ id: headers["webhook-id"] ?? "", headers, body, json: JSON.parse(body) as Received["json"] });
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}

let sb: TestSandbox;
let receiver: Receiver;

beforeAll(async () => {
  sb = await startTestSandbox({ webhookTickMs: 20 });
});

afterAll(async () => {
  await sb.close();
});

afterEach(async () => {
  await receiver.close();
  await sb.control.setFaults({
    webhookDuplicates: false,
    webhookOutOfOrder: false,
    webhookDelaySeconds: 0,
    webhookWrongSignature: false,
    quotaPerDay: false,
  });
});

async function newClient(): Promise<string> {
  receiver = await startReceiver();
  return (await sb.control.createClient({ plan: "paid", syncs: "instant" })).apiKey;
}

async function createConsumer(apiKey: string, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const created = await call(sb, { method: "POST", path: "/webhooks", apiKey, body: { url: receiver.url, ...body } });
  expect(created.status).toBe(201);
  return { id: str(created.json, "id"), secret: str(created.json, "secret") };
}

/** A company (with tags) and a connection authorized with a new tenant's credentials. */
async function linked(apiKey: string, params: { tags?: Record<string, string>; platformKey?: PlatformKey } = {}) {
  const platformKey = params.platformKey ?? "qhyg";
  const tenant = await sb.control.createTenant(platformKey, { name: "Tenant Ltd" });
  const created = await call(sb, { method: "POST", path: "/companies", apiKey, body: { name: "Hooked Ltd", tags: params.tags ?? {} } });
  const companyId = str(created.json, "id");
  const connectionId = await createConnection(sb, apiKey, companyId, platformKey);
  const authorized = await call(sb, {
    method: "PUT",
    path: `/companies/${companyId}/connections/${connectionId}/authorization`,
    apiKey,
    body: tenant.credentials,
  });
  expect(authorized.json).toMatchObject({ status: "Linked" });
  return { companyId, connectionId, tenant };
}

function eventsOf(type?: string): Received[] {
  return receiver.received.filter((r) => type === undefined || r.json.eventType === type);
}

async function waitForEvents(count: number, type?: string): Promise<Received[]> {
  return until(`${count} ${type ?? "event"}(s)`, () => eventsOf(type), (list) => list.length >= count, 5_000);
}

async function settle(ms = 200): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describe("webhook consumers", () => {
  it("creates, lists and deletes consumers in the service's shapes, each with its own whsec_ secret", async () => {
    const apiKey = await newClient();
    const created = await call(sb, {
      method: "POST",
      path: "/webhooks",
      apiKey,
      body: { url: receiver.url, eventTypes: ["connection.disconnected", "invoices.write.successful"], companyTags: ["region:uk"] },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      url: receiver.url,
      eventTypes: ["connection.disconnected", "invoices.write.successful"],
      companyTags: ["region:uk"],
      disabled: false,
    });
    const id = str(created.json, "id");
    expect(id).toMatch(UUID);
    expect(str(created.json, "secret")).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const other = await createConsumer(apiKey, { eventTypes: ["read.completed"] });
    expect(other.secret).not.toBe(str(created.json, "secret"));

    const listed = await call(sb, { path: "/webhooks", apiKey });
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({
      results: [
        { id, url: receiver.url, eventTypes: ["connection.disconnected", "invoices.write.successful"], companyTags: ["region:uk"], disabled: false },
        { id: other.id, url: receiver.url, eventTypes: ["read.completed"], disabled: false },
      ],
    });

    const otherClient = (await sb.control.createClient({ plan: "paid" })).apiKey;
    expect((await call(sb, { method: "DELETE", path: `/webhooks/${id}`, apiKey: otherClient })).status).toBe(403);
    const deleted = await call(sb, { method: "DELETE", path: `/webhooks/${id}`, apiKey });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const again = await call(sb, { method: "DELETE", path: `/webhooks/${id}`, apiKey });
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({ statusCode: 404, error: `No webhook consumer was found with ID ${id}` });
    expect((await call(sb, { path: "/webhooks", apiKey })).json).toEqual({
      results: [{ id: other.id, url: receiver.url, eventTypes: ["read.completed"], disabled: false }],
    });
  });

  it("refuses bad consumers with the sandbox's 400 body, naming each problem, and a 51st with 409", async () => {
    const apiKey = await newClient();
    const bad = await call(sb, {
      method: "POST",
      path: "/webhooks",
      apiKey,
      body: { url: "ftp://example.com/x", eventTypes: ["connection.disconnected", "DataSyncCompleted"], companyTags: ["no-colon"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      statusCode: 400,
      service: "PublicApi",
      error: "Error processing request - not valid.",
      validation: {
        errors: [
          { itemId: "url", validatorName: "CreateWebhookConsumer" },
          { itemId: "eventTypes[1]", validatorName: "CreateWebhookConsumer" },
          { itemId: "companyTags[0]", validatorName: "CreateWebhookConsumer" },
        ],
        warnings: [],
      },
    });
    const missing = await call(sb, { method: "POST", path: "/webhooks", apiKey, body: {} });
    expect(missing.json).toMatchObject({ validation: { errors: [{ itemId: "url" }, { itemId: "eventTypes" }] } });
    const tooManyTags = await call(sb, {
      method: "POST",
      path: "/webhooks",
      apiKey,
      body: { url: receiver.url, eventTypes: ["read.completed"], companyTags: Array.from({ length: 11 }, (_, i) => `k:${i}`) },
    });
    expect(tooManyTags.json).toMatchObject({ validation: { errors: [{ itemId: "companyTags", message: "companyTags has 11 items; the most is 10." }] } });
    expect((await call(sb, { method: "POST", path: "/webhooks", apiKey, rawBody: "[]" })).status).toBe(400);

    for (let i = 0; i < 50; i++) await createConsumer(apiKey, { eventTypes: ["read.completed"] });
    const fiftyFirst = await call(sb, { method: "POST", path: "/webhooks", apiKey, body: { url: receiver.url, eventTypes: ["read.completed"] } });
    expect(fiftyFirst.status).toBe(409);
    expect(fiftyFirst.json).toMatchObject({ statusCode: 409, error: expect.stringContaining("limited to 50") as unknown });
  });
});

describe("events", () => {
  it("a revoked tenant yields a signed connection.disconnected that Webhook.verify accepts with the consumer's secret", async () => {
    const apiKey = await newClient();
    const consumer = await createConsumer(apiKey, { eventTypes: ["connection.disconnected", "connection.connected"] });
    const { companyId, connectionId } = await linked(apiKey, { tags: { region: "uk" } });
    await waitForEvents(1, "connection.connected");
    await sb.control.deauthorize(companyId, connectionId);
    const [event] = await waitForEvents(1, "connection.disconnected");
    if (!event) throw new Error("no event");

    const verified = new Webhook(consumer.secret).verify(event.body, event.headers) as Received["json"];
    expect(verified.id).toBe(event.headers["webhook-id"]);
    expect(event.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(Math.abs(Number(event.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(() => new Webhook(`whsec_${Buffer.from("another secret entirely").toString("base64")}`).verify(event.body, event.headers)).toThrow();
    expect(verified).toMatchObject({
      eventType: "connection.disconnected",
      generatedDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      payload: {
        referenceCompany: { id: companyId, name: "Hooked Ltd", tags: { region: "uk" }, links: { portal: expect.stringContaining(companyId) as unknown } },
        connection: {
          id: connectionId,
          status: "Deauthorized",
          dataConnectionErrors: [expect.objectContaining({ status: "Active", errorMessage: expect.stringContaining("revoked") as unknown }) as unknown],
        },
      },
    });
  });

  it("a client with one-time Link URLs gets links with a token made with the message, which open the Link page", async () => {
    receiver = await startReceiver();
    const { apiKey } = await sb.control.createClient({ plan: "paid", syncs: "instant", oneTimeLinkUrls: true });
    await createConsumer(apiKey, { eventTypes: ["connection.connected"] });
    const { companyId, connectionId } = await linked(apiKey);
    const [event] = await waitForEvents(1, "connection.connected");
    const payload = event?.json.payload as { referenceCompany: { links: { portal: string } }; connection: { linkUrl: string } };
    expect(payload.referenceCompany.links.portal).toMatch(new RegExp(`^${sb.url}/link/company/${companyId}\\?token=\\d+\\.`));
    expect(payload.connection.linkUrl).toMatch(new RegExp(`^${sb.url}/link/companies/${companyId}/connections/${connectionId}/start\\?token=\\d+\\.`));
    for (const url of [payload.referenceCompany.links.portal, payload.connection.linkUrl]) expect((await fetch(url)).status).toBe(200);
  });

  it("a rotated tenant's next sync ends AuthError: connection.disconnected, then read.completed with each data type's status", async () => {
    const apiKey = await newClient();
    const consumer = await createConsumer(apiKey, { eventTypes: ["connection.disconnected", "read.completed"] });
    const { companyId, connectionId, tenant } = await linked(apiKey, { platformKey: "fbrh" });
    await sb.control.rotate("fbrh", tenant.tenantId);
    expect((await call(sb, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey })).status).toBe(204);
    const [read] = await waitForEvents(1, "read.completed");
    const [disconnected] = eventsOf("connection.disconnected");
    if (!read || !disconnected) throw new Error("no events");
    expect(receiver.received.indexOf(disconnected)).toBeLessThan(receiver.received.indexOf(read));
    expect(new Webhook(consumer.secret).verify(disconnected.body, disconnected.headers)).toMatchObject({
      payload: { connection: { id: connectionId, status: "Deauthorized" } },
    });
    const dataTypes = read.json.payload.dataTypes as { connectionId: string; dataType: string; status: string; recordsModified: boolean }[];
    expect(dataTypes.find((d) => d.dataType === "invoices")).toEqual({
      connectionId,
      dataType: "invoices",
      recordsModified: false,
      status: "AuthError",
      issues: [],
    });
    expect(dataTypes.find((d) => d.dataType === "purchaseOrders")?.status).toBe("NotSupported");
    expect(read.json.payload).toMatchObject({ referenceCompany: { id: companyId }, modifiedFromDate: expect.any(String) as unknown });
  });

  it("announces connected, failed, reconnected, unlinked and deleted connections, and a complete read", async () => {
    const apiKey = await newClient();
    await createConsumer(apiKey, {
      eventTypes: ["connection.connected", "connection.failed", "connection.reconnected", "connection.disconnected", "connection.deleted", "read.completed"],
    });
    const tenant = await sb.control.createTenant("vxvy", { name: "Ledger Ltd" });
    const companyId = await createCompany(sb, apiKey, "Events Ltd");
    const connectionId = await createConnection(sb, apiKey, companyId, "vxvy");
    const revoked = await sb.control.issueCredentials("vxvy", tenant.tenantId, "revoked");
    const path = `/companies/${companyId}/connections/${connectionId}/authorization`;
    expect((await call(sb, { method: "PUT", path, apiKey, body: revoked.credentials })).json).toMatchObject({ status: "Deauthorized" });
    const [failed] = await waitForEvents(1, "connection.failed");
    expect(failed?.json.payload).toMatchObject({
      connection: { status: "Deauthorized", dataConnectionErrors: [expect.objectContaining({ status: "Active" }) as unknown] },
    });

    await sb.control.link(companyId, connectionId);
    await waitForEvents(1, "connection.connected");
    expect((await call(sb, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey })).status).toBe(204);
    const [read] = await waitForEvents(1, "read.completed");
    const invoices = (read?.json.payload.dataTypes as { dataType: string; status: string; recordsModified: boolean }[]).find((d) => d.dataType === "invoices");
    expect(invoices).toMatchObject({ status: "Complete", recordsModified: true });

    const unlinked = await call(sb, { method: "PATCH", path: `/companies/${companyId}/connections/${connectionId}`, apiKey, body: { status: "Unlinked" } });
    expect(unlinked.status).toBe(200);
    const [disconnected] = await waitForEvents(1, "connection.disconnected");
    expect(disconnected?.json.payload).toMatchObject({ connection: { status: "Unlinked" } });
    await sb.control.link(companyId, connectionId);
    const [reconnected] = await waitForEvents(1, "connection.reconnected");
    expect(reconnected?.json.payload).toMatchObject({ connection: { status: "Linked" } });
    expect(eventsOf("connection.connected")).toHaveLength(1);

    expect((await call(sb, { method: "DELETE", path: `/companies/${companyId}/connections/${connectionId}`, apiKey })).status).toBe(200);
    const [deleted] = await waitForEvents(1, "connection.deleted");
    expect(deleted?.json.payload).toMatchObject({ connection: { id: connectionId } });
  });

  it("sends each consumer only its event types and, when it names company tags, only those companies' events", async () => {
    const apiKey = await newClient();
    const everything = await createConsumer(apiKey, { eventTypes: ["connection.disconnected"] });
    const ukOnly = await createConsumer(apiKey, { eventTypes: ["connection.connected", "connection.disconnected"], companyTags: ["region:uk"] });
    const uk = await linked(apiKey, { tags: { region: "uk" } });
    const us = await linked(apiKey, { tags: { region: "us" } });
    await sb.control.deauthorize(uk.companyId, uk.connectionId);
    await sb.control.deauthorize(us.companyId, us.connectionId);
    await waitForEvents(4);
    await settle();
    const seen = receiver.received.map((r) => {
      const secret = [everything, ukOnly].find((c) => {
        try {
          new Webhook(c.secret).verify(r.body, r.headers);
          return true;
        } catch {
          return false;
        }
      });
      const company = (r.json.payload.referenceCompany as { tags: { region: string } }).tags.region;
      return `${secret === everything ? "all" : "uk"} ${r.json.eventType} ${company}`;
    });
    expect(seen.sort()).toEqual(
      ["all connection.disconnected uk", "all connection.disconnected us", "uk connection.connected uk", "uk connection.disconnected uk"].sort(),
    );
  });

  it("announces the daily quota reached, with what remains, and its reset at 00:00 UTC on the sandbox clock", async () => {
    const apiKey = await newClient();
    await createConsumer(apiKey, { eventTypes: ["client.rateLimit.reached", "client.rateLimit.reset"] });
    await sb.control.setFaults({ quotaPerDay: true });
    let refused = 0;
    for (let i = 0; i < 1_010 && refused < 3; i++) {
      const answer = await call(sb, { path: "/webhooks", apiKey });
      if (answer.status === 429) refused += 1;
    }
    const [reached] = await waitForEvents(1, "client.rateLimit.reached");
    const clock = await sb.control.getClock();
    const midnight = `${clock.now.slice(0, 10)}T00:00:00.000Z`;
    const nextMidnight = new Date(Date.parse(midnight) + 86_400_000).toISOString();
    expect(reached?.json.payload).toEqual({ dailyQuota: 1_000, quotaRemaining: 0, expiryDate: nextMidnight });
    await settle();
    expect(eventsOf("client.rateLimit.reached")).toHaveLength(1);

    const untilMidnight = (Date.parse(nextMidnight) - Date.parse(clock.now)) / 1000;
    await sb.control.advanceClock({ seconds: Math.ceil(untilMidnight) + 1 });
    const [reset] = await waitForEvents(1, "client.rateLimit.reset");
    expect(reset?.json.payload).toEqual({
      dailyQuota: 1_000,
      quotaRemaining: 1_000,
      expiryDate: new Date(Date.parse(nextMidnight) + 86_400_000).toISOString(),
    });
  });
});

describe("delivery", () => {
  it("retries a failing endpoint on the documented schedule by the sandbox clock, disables it after 5 days of failures, and replays what it missed", async () => {
    const apiKey = await newClient();
    receiver.status = 503;
    const consumer = await createConsumer(apiKey, { eventTypes: ["connection.connected", "connection.disconnected"] });
    const first = await linked(apiKey);
    const deliveries = async () => (await sb.control.webhookDeliveries(consumer.id)).results;
    const attempts = (n: number) => until(`attempt ${n}`, deliveries, (list) => (list[0]?.attempts ?? 0) >= n, 5_000);

    let list = await attempts(1);
    const schedule = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];
    for (const [index, seconds] of schedule.entries()) {
      const [delivery] = list;
      if (!delivery?.lastAttemptAt || !delivery.nextAttemptAt) throw new Error(`no next attempt after ${index + 1}`);
      expect(delivery).toMatchObject({ status: "pending", attempts: index + 1, lastResponse: "503" });
      expect((Date.parse(delivery.nextAttemptAt) - Date.parse(delivery.lastAttemptAt)) / 1000).toBe(seconds);
      // Not before its time: the attempt waits for the clock.
      await settle(60);
      expect((await deliveries())[0]?.attempts).toBe(index + 1);
      await sb.control.advanceClock({ seconds });
      list = await attempts(index + 2);
    }
    expect(list[0]).toMatchObject({ status: "failed", attempts: 8, nextAttemptAt: null });
    expect(eventsOf()).toHaveLength(8);
    expect(new Set(eventsOf().map((r) => r.id)).size).toBe(1);
    expect((await sb.control.webhookDeliveries(consumer.id)).consumer).toMatchObject({ disabled: false, failingSince: expect.any(String) as unknown });

    // Still failing four days later: five days of failures disable the endpoint.
    await sb.control.advanceClock({ days: 4 });
    await sb.control.deauthorize(first.companyId, first.connectionId);
    await until("disabled", () => sb.control.webhookDeliveries(consumer.id), (d) => d.consumer.disabled, 5_000);
    expect((await call(sb, { path: "/webhooks", apiKey })).json).toMatchObject({ results: [{ id: consumer.id, disabled: true }] });
    await linked(apiKey);
    await settle();
    const beforeReplay = await deliveries();
    expect(beforeReplay.map((d) => [d.eventType, d.status])).toEqual([
      ["connection.connected", "failed"],
      ["connection.disconnected", "failed"],
      ["connection.connected", "missed"],
    ]);
    const sent = eventsOf().length;

    receiver.status = 204;
    const replay = await sb.control.replayWebhooks(consumer.id);
    expect(replay).toMatchObject({ webhookId: consumer.id, replayed: 3 });
    await waitForEvents(sent + 3);
    expect(eventsOf().slice(sent).map((r) => r.json.eventType)).toEqual(["connection.connected", "connection.disconnected", "connection.connected"]);
    expect((await deliveries()).map((d) => d.status)).toEqual(["delivered", "delivered", "delivered"]);
    expect((await sb.control.webhookDeliveries(consumer.id)).consumer).toMatchObject({ disabled: false, failingSince: null });
  });

  it("fault switches: duplicates, a delay, out-of-order delivery and a wrong signature", async () => {
    const apiKey = await newClient();
    const consumer = await createConsumer(apiKey, { eventTypes: ["connection.connected", "connection.disconnected"] });

    await sb.control.setFaults({ webhookDuplicates: true });
    const one = await linked(apiKey);
    await waitForEvents(2);
    const [a, b] = eventsOf();
    expect(a?.id).toBe(b?.id);
    expect(a?.body).toBe(b?.body);

    await sb.control.setFaults({ webhookDuplicates: false, webhookDelaySeconds: 30, webhookOutOfOrder: true });
    receiver.received.length = 0;
    await sb.control.deauthorize(one.companyId, one.connectionId);
    await sb.control.link(one.companyId, one.connectionId);
    await settle(300);
    expect(eventsOf()).toHaveLength(0);
    await sb.control.advanceClock({ seconds: 30 });
    await waitForEvents(1);
    await settle();
    // Reconnected is not subscribed: only the disconnected arrives, late.
    expect(eventsOf().map((r) => r.json.eventType)).toEqual(["connection.disconnected"]);

    receiver.received.length = 0;
    const two = await linked(apiKey);
    await sb.control.deauthorize(two.companyId, two.connectionId);
    await settle(100);
    expect(eventsOf()).toHaveLength(0);
    await sb.control.advanceClock({ seconds: 30 });
    await waitForEvents(2);
    expect(eventsOf().map((r) => r.json.eventType)).toEqual(["connection.disconnected", "connection.connected"]);

    await sb.control.setFaults({ webhookDelaySeconds: 0, webhookOutOfOrder: false, webhookWrongSignature: true });
    receiver.received.length = 0;
    await linked(apiKey);
    const [forged] = await waitForEvents(1);
    if (!forged) throw new Error("no event");
    expect(() => new Webhook(consumer.secret).verify(forged.body, forged.headers)).toThrow(/signature/i);
  });

  it("keeps consumers and queued messages in the sandbox's file: a message due after a restart is sent then", async () => {
    const apiKey = await newClient();
    const consumer = await createConsumer(apiKey, { eventTypes: ["connection.connected"] });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-webhooks-"));
    const dbFile = path.join(dir, "sandbox.db");
    let own = await startTestSandbox({ dbFile, webhookTickMs: 20 });
    try {
      const ownKey = (await own.control.createClient({ plan: "paid" })).apiKey;
      const created = await call(own, { method: "POST", path: "/webhooks", apiKey: ownKey, body: { url: receiver.url, eventTypes: ["connection.connected"] } });
      const secret = str(created.json, "secret");
      await own.control.setFaults({ webhookDelaySeconds: 60 });
      const tenant = await own.control.createTenant("fbrh", { name: "Restart Ltd" });
      const companyId = await createCompany(own, ownKey, "Restart Ltd");
      const connectionId = await createConnection(own, ownKey, companyId, "fbrh");
      await call(own, { method: "PUT", path: `/companies/${companyId}/connections/${connectionId}/authorization`, apiKey: ownKey, body: tenant.credentials });
      await own.close();
      own = await startTestSandbox({ dbFile, webhookTickMs: 20 });
      await settle(100);
      expect(eventsOf()).toHaveLength(0);
      await own.control.advanceClock({ seconds: 60 });
      const [event] = await waitForEvents(1);
      if (!event) throw new Error("no event");
      expect(new Webhook(secret).verify(event.body, event.headers)).toMatchObject({ payload: { connection: { id: connectionId, status: "Linked" } } });
      // The shared sandbox's own consumer saw nothing of the other sandbox.
      expect((await sb.control.webhookDeliveries(consumer.id)).results).toEqual([]);
    } finally {
      await own.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
