/**
 * The tRPC route's request limits, through the real handler with real Request objects and a real
 * temporary database: mutations only from Ferry's own pages, a 1 MB body cap, at most 20 calls a batch.
 */
import { count } from "drizzle-orm";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organizations } from "@/db/schema";
import { TRPC_BODY_LIMIT, TRPC_MAX_BATCH } from "@/server/http/request-guards";
import { handleTrpcRequest } from "./http";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { testConfig } from "../testing/caller";

const APP = "http://ferry.test";
let t: TestDatabase;
let p: People;
beforeAll(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterAll(() => t.close());

/** Sends a request as the admin through the route's handler. */
function send(path: string, init: RequestInit = {}) {
  const req = new Request(`${APP}/api/trpc/${path}`, init);
  return handleTrpcRequest(req, {
    appOrigin: APP,
    createContext: async () => ({ database: t.database, actor: p.admin, clientAddress: "127.0.0.1", config: testConfig() }),
  });
}

const createOrg = (name: string, headers: Record<string, string> = {}) =>
  send("organizations.create", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ json: { name } }),
  });

const orgCount = async () => (await t.db.select({ n: count() }).from(organizations))[0]!.n;

async function errorOf(res: Response): Promise<{ message: string; data: { code: string } }> {
  const body = (await res.json()) as { error: { json: { message: string; data: { code: string } } } };
  return body.error.json;
}

describe("mutations from other sites", () => {
  it("are refused with 403 when the Origin is not Ferry's, and change nothing", async () => {
    const before = await orgCount();
    const res = await createOrg("Evil Org", { origin: "http://evil.test" });
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toMatchObject({ data: { code: "FORBIDDEN" }, message: expect.stringContaining("http://evil.test") });
    expect(await orgCount()).toBe(before);
  });

  it("are refused when the browser says the request is cross-site, even without an Origin", async () => {
    const before = await orgCount();
    expect((await createOrg("Cross Site Org", { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await createOrg("Same Site Org", { "sec-fetch-site": "same-site", origin: "http://other.ferry.test" })).status).toBe(403);
    expect((await createOrg("Null Origin Org", { origin: "null" })).status).toBe(403);
    expect(await orgCount()).toBe(before);
  });

  it("pass from Ferry's own pages, and from clients that are not browsers", async () => {
    const before = await orgCount();
    expect((await createOrg("Own Page Org", { origin: APP, "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect((await createOrg("Origin Only Org", { origin: APP })).status).toBe(200);
    expect((await createOrg("Script Org")).status).toBe(200);
    expect(await orgCount()).toBe(before + 3);
  });

  it("reads pass whatever their origin (a foreign page cannot read the answer)", async () => {
    const res = await send("me.get", { headers: { origin: "http://evil.test", "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(200);
  });
});

describe("request size", () => {
  it("a body over 1 MB is refused with 413, by its declared length, and nothing is created", async () => {
    const before = await orgCount();
    const big = JSON.stringify({ json: { name: "x".repeat(TRPC_BODY_LIMIT) } });
    const res = await send("organizations.create", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(big.length) },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toMatchObject({ data: { code: "PAYLOAD_TOO_LARGE" }, message: "The request is larger than 1 MB." });
    expect(await orgCount()).toBe(before);
  });

  it("a streamed body without a length is cut off once it passes 1 MB", async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Endless: the handler must stop reading by itself.
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await send("organizations.create", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(TRPC_BODY_LIMIT * 2);
  });
});

describe("batches", () => {
  const batch = (n: number) => {
    const paths = Array.from({ length: n }, () => "me.get").join(",");
    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { json: null }]))));
    return send(`${paths}?batch=1&input=${input}`);
  };

  it(`of up to ${TRPC_MAX_BATCH} calls are answered`, async () => {
    const res = await batch(TRPC_MAX_BATCH);
    expect(res.status).toBe(200);
    expect((await res.json()) as unknown[]).toHaveLength(TRPC_MAX_BATCH);
  });

  it(`of more than ${TRPC_MAX_BATCH} calls are refused with 400 and run nothing`, async () => {
    const res = await batch(TRPC_MAX_BATCH + 1);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error?: { json: { message: string } } } | { error: { json: { message: string } } }[];
    const first = Array.isArray(body) ? body[0]! : body;
    expect(first.error!.json.message).toBe("Batch call exceeds maximum size");
  });

  it("a refused batch mutation gets one error per call, as the browser's client expects", async () => {
    const res = await send("organizations.create,organizations.create?batch=1", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.test" },
      body: JSON.stringify({ 0: { json: { name: "A" } }, 1: { json: { name: "B" } } }),
    });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { json: unknown } }[];
    expect(body).toHaveLength(2);
    expect(superjson.deserialize(body[0]!.error as never)).toMatchObject({ data: { code: "FORBIDDEN" } });
  });
});

describe("caching", () => {
  it("every answer says Cache-Control: no-store — a read, a mutation, a batch, an error and a refusal", async () => {
    const answers = {
      read: await send("me.get"),
      mutation: await createOrg("No Store Org"),
      batch: await send(`me.get,me.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { json: null }, 1: { json: null } }))}`),
      invalidInput: await createOrg(""),
      unknownProcedure: await send("nothing.here"),
      refused: await createOrg("Refused Org", { origin: "http://evil.test" }),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, r.status]));
    expect(statuses).toEqual({ read: 200, mutation: 200, batch: 200, invalidInput: 400, unknownProcedure: 404, refused: 403 });
    for (const [what, res] of Object.entries(answers)) expect({ what, cacheControl: res.headers.get("cache-control") }).toEqual({ what, cacheControl: "no-store" });
  });
});
