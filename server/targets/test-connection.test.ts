/**
 * "Test connection" against a real sandbox on a random port (and a port nobody listens on, and a
 * server that never answers): each answer in words, with the status, text and correlationId.
 */
import net from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, serviceTargets } from "@/db/schema";
import { callerAs } from "@/server/testing/caller";
import { call, createCompany, str } from "@/server/testing/raw-http";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { closedPort } from "@/server/testing/service-fixture";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { answeringServer, hugeAnswerServer, redirectingServer } from "@/server/testing/hostile-servers";
import { archiveServiceTarget, createServiceTarget } from "./targets";
import { testTargetConnection } from "./test-connection";

let sb: TestSandbox;
let t: TestDatabase;
let p: People;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(async () => {
  await t.close();
  await sb.control.setFaults({ maintenance: false });
});

const target = async (name: string, apiKey: string, baseUrl = sb.url) => (await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name, baseUrl, apiKey, kind: "service", organizationId: p.orgA })).id;
const test = (targetId: string, options: Parameters<typeof testTargetConnection>[4] = {}) => testTargetConnection(t.database, TEST_KEY_RING, p.admin, { targetId }, options);
const decryptions = (targetId: string) => t.db.select().from(auditEvents).where(and(eq(auditEvents.action, "secret.decrypted"), eq(auditEvents.targetId, targetId)));

describe("testing a target's connection", () => {
  it("says the key works, with how many companies the account holds, after one read (the decryption audited)", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", name: "Works" });
    await createCompany(sb, apiKey, "Alpha");
    await createCompany(sb, apiKey, "Beta");
    const id = await target("Production — Org A", apiKey);
    const answer = await test(id);
    expect(answer).toMatchObject({ outcome: "works", status: 200, error: null, summary: "The key works: the service answered 200 and the account holds 2 companies." });
    expect((await decryptions(id)).map((e) => e.after)).toEqual([{ purpose: "test the connection to Production — Org A" }]);
    expect(JSON.stringify(answer)).not.toContain(apiKey);
  });

  it("says a wrong key is wrong (401), with the service's text and correlationId", async () => {
    const answer = await test(await target("Wrong", "not-a-key-of-this-sandbox"));
    expect(answer).toMatchObject({ outcome: "wrong_key", status: 401, error: "Unauthorized", correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string });
    expect(answer.summary).toBe(`Wrong key: the service does not know this API key (401 Unauthorized, correlationId ${answer.correlationId}). Check the key with the customer and replace it.`);
  });

  it("says a key the service knows but refuses is not allowed (403: a deleted key)", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", name: "Rotated" });
    const extra = await call(sb, { method: "POST", path: "/apiKeys", apiKey, body: { name: "second" } });
    await call(sb, { method: "DELETE", path: `/apiKeys/${str(extra.json, "id")}`, apiKey });
    const answer = await test(await target("Deleted key", str(extra.json, "apiKey")));
    expect(answer).toMatchObject({ outcome: "not_allowed", status: 403, correlationId: expect.any(String) as string });
    expect(answer.summary).toBe(`Not allowed: the service knows the key but refused to let it read companies (403 ${answer.error!.replace(/[.]$/, "")}, correlationId ${answer.correlationId}); it may have been deleted or lack permission. Ask the customer for a current key.`);
  });

  it("says the service is unreachable when nothing listens at the address", async () => {
    const port = await closedPort();
    const answer = await test(await target("Nobody home", "some-key-1234", `http://127.0.0.1:${port}`));
    expect(answer).toMatchObject({ outcome: "unreachable", status: null, correlationId: null });
    expect(answer.summary).toBe(`Unreachable: nothing answered at 127.0.0.1:${port} (ECONNREFUSED). Check the base URL, and that this machine can reach it.`);
  });

  it("says the service is unreachable when it accepts the connection and never answers", async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const answer = await test(await target("Silent", "some-key-1234", `http://127.0.0.1:${port}`), { timeoutMs: 300 });
      expect(answer).toMatchObject({ outcome: "unreachable", status: null, summary: `Unreachable: 127.0.0.1:${port} did not answer within 300 ms. Check the base URL, and that this machine can reach it.` });
    } finally {
      silent.close();
    }
  });

  it("gives any other answer with its status, text and correlationId (maintenance, an expired trial)", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", name: "Maintenance" });
    const id = await target("In maintenance", apiKey);
    await sb.control.setFaults({ maintenance: true });
    const down = await test(id);
    expect(down).toMatchObject({ outcome: "other", status: 503 });
    expect(down.summary).toBe(`The service answered 503: ${down.error!.replace(/[.]$/, "")} (correlationId ${down.correlationId}).`);
    await sb.control.setFaults({ maintenance: false });

    const { apiKey: old } = await sb.control.createClient({ plan: "free", name: "Old trial", createdAt: new Date(Date.now() - 400 * 86_400_000).toISOString() });
    const expired = await test(await target("Expired", old));
    expect(expired).toMatchObject({ outcome: "other", status: 402, correlationId: expect.any(String) as string });
    expect(expired.summary).toContain("The service answered 402: ");
  });

  it("does not send the key over plain http to another machine (a target from before https was required)", async () => {
    const id = await target("Legacy", "legacy-key-5678");
    await t.db.update(serviceTargets).set({ baseUrl: "http://api.example.test" }).where(eq(serviceTargets.id, id));
    await expect(test(id)).rejects.toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("Not tested, so the key is not sent: The base URL must use https") });
    expect(await decryptions(id)).toEqual([]);
  });

  it("is an admin's procedure with its answer as the output", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", name: "Router" });
    const id = await target("Through the router", apiKey);
    await expect(callerAs(t.database, p.admin).targets.testConnection({ targetId: id })).resolves.toMatchObject({ outcome: "works", testedAt: expect.any(Date) as Date });
    await expect(callerAs(t.database, p.support).targets.testConnection({ targetId: id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(callerAs(t.database, p.admin).targets.testConnection({ targetId: "nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("reports a redirect as a failure naming the status and the location, never as a working key (nothing is sent on)", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", name: "Behind a redirect" });
    // Where the redirect points is the real sandbox: following it would say "The key works".
    const redirecting = await redirectingServer({ to: sb.url, status: 302 });
    try {
      const answer = await test(await target("Redirecting", apiKey, redirecting.url));
      expect(answer).toMatchObject({ outcome: "other", status: 302 });
      expect(answer.summary).toBe(`Not a working target: The service answered 302 redirecting to ${sb.url}/companies?page=1&pageSize=1: Ferry follows no redirect (the request would carry the key and tokens there), so nothing was sent on. Check the target's base URL.`);
      expect(redirecting.requests).toHaveLength(1);
    } finally {
      await redirecting.close();
    }
  });

  it("stops reading a 400 MB answer at the cap and says so", async () => {
    const huge = await hugeAnswerServer({ megabytes: 400, declareLength: false });
    try {
      const answer = await test(await target("Endless", "some-key-1234", huge.url));
      expect(answer).toMatchObject({ outcome: "other", status: 200, summary: "The service answered 200: The answer is larger than 20 MB, the most Ferry reads of one answer: reading stopped there." });
    } finally {
      await huge.close();
    }
  });

  it("shows the service's error text without its control characters", async () => {
    const server = await answeringServer({ status: 418, body: { statusCode: 418, service: "Teapot", error: "I am\r\n[ferry] a forged line\u001b[2J", correlationId: "c-1" } });
    try {
      const answer = await test(await target("Teapot", "some-key-1234", server.url));
      expect(answer).toMatchObject({ outcome: "other", status: 418, error: "I am [ferry] a forged line[2J", summary: "The service answered 418: I am [ferry] a forged line[2J (correlationId c-1)." });
    } finally {
      await server.close();
    }
  });

  it("refuses to test an archived target, decrypting nothing", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", name: "Archived" });
    const id = await target("Old account", apiKey);
    await archiveServiceTarget(t.database, p.admin, { targetId: id });
    await expect(test(id)).rejects.toMatchObject({ code: "PRECONDITION_FAILED", message: "Old account is archived: it is kept for the record and cannot be tested." });
    await expect(callerAs(t.database, p.admin).targets.testConnection({ targetId: id })).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
    expect(await decryptions(id)).toEqual([]);
  });

  it("checks the address again when it calls: a name that now resolves to a private or metadata address is not connected to", async () => {
    const id = await target("Rebinding", "some-key-1234", "https://rebind.example.test");
    for (const address of ["10.0.0.7", "169.254.169.254"]) {
      const answer = await test(id, { resolve: async () => [{ address, family: 4 }] });
      expect(answer).toMatchObject({ outcome: "other", status: null });
      expect(answer.summary).toContain(`Not tested, so the key was not sent: Not sent to rebind.example.test: it resolves to ${address} is a`);
    }
  });
});
