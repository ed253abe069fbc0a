import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuth, startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { createPacer, type Pacer } from "./pacer";

/** `total` GETs from `callers` concurrent loops through `send`; the statuses, in order of answer. */
async function load(params: { sb: TestSandbox; apiKey: string; send: typeof fetch; total: number; callers: number }): Promise<number[]> {
  const statuses: number[] = [];
  let left = params.total;
  const loop = async () => {
    while (left > 0) {
      left -= 1;
      const response = await params.send(`${params.sb.url}/companies?page=1&pageSize=1`, { headers: { Authorization: basicAuth(params.apiKey) } });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
  };
  await Promise.all(Array.from({ length: params.callers }, loop));
  return statuses;
}

const share429 = (statuses: number[]) => statuses.filter((s) => s === 429).length / statuses.length;

describe("the pacer, against a real sandbox with a small rate limit", () => {
  let sb: TestSandbox;
  let apiKey: string;

  beforeAll(async () => {
    sb = await startTestSandbox();
    ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
  });
  afterAll(async () => {
    await sb.close();
  });

  it("without pacing, 40 callers storm a limit of 40 a second (the case the pacer exists for)", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 40 });
    const statuses = await load({ sb, apiKey, send: fetch, total: 300, callers: 40 });
    expect(share429(statuses)).toBeGreaterThan(0.2);
  });

  it("keeps 429s to at most 1 % of requests while using the whole limit", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 40 });
    const pacer = createPacer({ initialConcurrency: 16 });
    const statuses = await load({ sb, apiKey, send: pacer.fetch, total: 240, callers: 40 });
    expect(statuses).toHaveLength(240);
    expect(share429(statuses)).toBeLessThanOrEqual(0.01);
    const stats = pacer.stats();
    expect(stats).toMatchObject({ sent: 240, answered: 240, limit: 40, inFlight: 0 });
    expect(stats.rateLimited).toBe(statuses.filter((s) => s === 429).length);
  });

  it("reads a reset given in epoch seconds (the reference allows it) as it reads a date: the whole limit used, at most 1 % refused", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 40 });
    // The sandbox states its resets as ISO dates on whole seconds; this service states the same in epoch seconds.
    const epochSeconds: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      const headers = new Headers(answer.headers);
      const reset = headers.get("x-rate-limit-reset");
      if (reset) headers.set("x-rate-limit-reset", String(Math.ceil(Date.parse(reset) / 1000)));
      return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
    };
    const pacer = createPacer({ initialConcurrency: 16, fetch: epochSeconds });
    const statuses = await load({ sb, apiKey, send: pacer.fetch, total: 240, callers: 40 });
    expect(statuses).toHaveLength(240);
    expect(share429(statuses)).toBeLessThanOrEqual(0.01);
    expect(pacer.stats()).toMatchObject({ sent: 240, answered: 240, limit: 40, inFlight: 0 });
  });

  it("after a 429, holds every request until Retry-After has passed and halves its concurrency", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 3 });
    // A raw burst from elsewhere spends the window, so the pacer's first answer is a 429.
    await load({ sb, apiKey, send: fetch, total: 5, callers: 5 });
    const pacer = createPacer({ initialConcurrency: 8 });
    const first = await pacer.fetch(`${sb.url}/companies`, { headers: { Authorization: basicAuth(apiKey) } });
    expect(first.status).toBe(429);
    const stats = pacer.stats();
    expect(stats.hold?.reason).toBe("retry_after");
    expect(stats.hold!.until).toBeGreaterThan(Date.now() + 500);
    expect(stats.concurrency).toBe(4);
    const next = await pacer.fetch(`${sb.url}/companies`, { headers: { Authorization: basicAuth(apiKey) } });
    expect(next.status).toBe(200);
  });

  it("halves its concurrency once for a burst of 429s to requests sent together, not once per answer", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 3 });
    // The window is spent elsewhere: the pacer's sixteen first requests all go out before any answer.
    await load({ sb, apiKey, send: fetch, total: 5, callers: 5 });
    const pacer = createPacer({ initialConcurrency: 16 });
    const answers = await Promise.all(Array.from({ length: 16 }, () => pacer.fetch(`${sb.url}/companies`, { headers: { Authorization: basicAuth(apiKey) } })));
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThan(8);
    expect(pacer.stats().concurrency).toBe(8);
  });

  it("holds requests for a maintenance window's Retry-After, and says so", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 10_000, maintenance: true });
    const pacer = createPacer();
    const response = await pacer.fetch(`${sb.url}/companies`, { headers: { Authorization: basicAuth(apiKey) } });
    expect(response.status).toBe(503);
    const hold = pacer.stats().hold;
    expect(hold?.reason).toBe("maintenance");
    expect(hold!.until - Date.now()).toBeGreaterThan(25_000);
    // Support (or the runner) may wake it once the service is back.
    await sb.control.setFaults({ maintenance: false });
    pacer.wake();
    expect(pacer.stats().hold).toBeNull();
    expect((await pacer.fetch(`${sb.url}/companies`, { headers: { Authorization: basicAuth(apiKey) } })).status).toBe(200);
  });

  it("stops at a spent daily quota instead of sending into it, until woken after the reset", async () => {
    await sb.control.setFaults({ maintenance: false, rateLimitPerSecond: 10_000, quotaPerDay: true });
    const { apiKey: quotaKey } = await sb.control.createClient({ plan: "paid" });
    const pacer = createPacer({ initialConcurrency: 16 });
    // A client with no connected company has 1,000 requests a day.
    const statuses = await load({ sb, apiKey: quotaKey, send: pacer.fetch, total: 1000, callers: 16 });
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
    const hold = pacer.stats().hold;
    expect(hold).toMatchObject({ reason: "window_spent", limit: 1000 });
    expect(hold!.until - Date.now()).toBeGreaterThan(60_000);
    let sent = false;
    const held = pacer.fetch(`${sb.url}/companies`, { headers: { Authorization: basicAuth(quotaKey) } }).then((r) => {
      sent = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(sent).toBe(false);
    await sb.control.advanceClock({ days: 1 });
    pacer.wake();
    expect((await held).status).toBe(200);
    expect(pacer.stats().rateLimited).toBe(0);
    await sb.control.setFaults({ quotaPerDay: false });
  });
});

describe("the pacer's own ceiling", () => {
  it("keeps under a per-minute limit the service does not announce", async () => {
    const sent: number[] = [];
    const fakeFetch: typeof fetch = async () => {
      sent.push(performance.now());
      return new Response("{}", { status: 200 });
    };
    const pacer: Pacer = createPacer({ fetch: fakeFetch, maxPerMinute: 600, initialConcurrency: 64 });
    // 600 a minute = 10 a second; at most a burst of 10, then 9.5 a second.
    await Promise.all(Array.from({ length: 25 }, () => pacer.fetch("http://ferry.invalid/")));
    const span = (sent.at(-1)! - sent[0]!) / 1000;
    expect(sent).toHaveLength(25);
    // 15 requests beyond the burst at 9.5 a second take at least 1.5 s.
    expect(span).toBeGreaterThan(1.4);
    expect(pacer.stats().hold === null || pacer.stats().hold?.reason === "minute_ceiling").toBe(true);
  });
});
