/**
 * The shared rate budget with pacers in processes of their own (shared-budget-child.ts), on one
 * test database (a SQLite file, or a PostgreSQL database on its pass, each process with its own
 * connection), against a real sandbox on a random port: together they keep to the limit of their
 * address and to the account's daily quota, with few 429s; a process killed with SIGKILL has its
 * share given to the others and its unsent quota handed back once its heartbeat is stale.
 *
 * The sandbox counts the per-second limit per client (one API key) — the same thing here as per
 * address, since every process runs on this machine.
 *
 * Runs on both databases: the rate budget shared through the database by processes.
 * @module-tag both-databases
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateBudgetMembers, rateBudgetQuotas } from "@/db/schema";
import { createServiceTarget } from "@/server/targets/targets";
import { bundleChild, type BundledChild } from "@/server/testing/bundle-child";
import { createTestDatabase, TEST_KEY_RING, type TestDatabase } from "@/server/testing/test-db";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { until } from "@/server/testing/until";
import { reclaimable } from "./budget-rules";

/**
 * The budget's heartbeat and staleness (2 s and 6 s in production): shorter, so a dead process's
 * share is freed in a few seconds, yet with room for a busy machine's late heartbeat.
 */
const HEARTBEAT_MS = 1_000;
const STALE_MS = 3_000;

/**
 * "Few 429s": at most this share of what was sent. A request sent at the end of one of the
 * server's one-second windows and held up on a busy machine (the suite runs beside these
 * processes on two cores) is counted in the next one, which no pacer can know of; unshared pacers
 * are refused for more than 10 % of theirs.
 */
const FEW_429S = 0.04;

type Line = { t: number; sent: number; pacerSent: number; ok: number; r429: number; ready: boolean; count: number | null; taken: number | null; used: number | null; hold: string | null; done: boolean };
type Child = { child: ChildProcess; lines: Line[]; errors: string[]; exited: Promise<number | null>; last(): Line | undefined };

let sb: TestSandbox;
let t: TestDatabase;
/** The child's module, bundled once: ten processes start here, each in about half a second instead of tsx's two or three. */
let childModule: BundledChild;
const started: Child[] = [];

function startPacer(params: { targetId: string; apiKey: string; durationMs: number; knownQuota?: number; share?: boolean; callers?: number; untilSpent?: boolean }): Child {
  const child = spawn(process.execPath, [childModule.file], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      // The test database: DATABASE_FILE (and an empty DATABASE_URL) on SQLite, DATABASE_URL on PostgreSQL.
      ...t.env,
      BUDGET_TARGET_ID: params.targetId,
      BUDGET_MACHINE_ID: "machine-one",
      BUDGET_KNOWN_QUOTA: params.knownQuota ? String(params.knownQuota) : "",
      BUDGET_SHARE: params.share === false ? "0" : "1",
      BUDGET_DURATION_MS: String(params.durationMs),
      BUDGET_CALLERS: String(params.callers ?? 8),
      BUDGET_UNTIL_SPENT: params.untilSpent ? "1" : "0",
      BUDGET_HEARTBEAT_MS: String(HEARTBEAT_MS),
      BUDGET_STALE_MS: String(STALE_MS),
      SANDBOX_URL: sb.url,
      SANDBOX_API_KEY: params.apiKey,
    },
  });
  const lines: Line[] = [];
  const errors: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => {
    for (const text of chunk.toString().split("\n").filter(Boolean)) {
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        errors.push(text);
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => errors.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const c = { child, lines, errors, exited, last: () => lines.at(-1) };
  started.push(c);
  return c;
}

async function finished(children: Child[]): Promise<Line[]> {
  const codes = await Promise.all(children.map((c) => c.exited));
  for (const [i, code] of codes.entries()) expect(code, children[i]!.errors.join("\n")).toBe(0);
  return children.map((c) => c.last()!);
}

async function target(name: string, dailyQuota: number | null = null): Promise<{ targetId: string; apiKey: string }> {
  const { apiKey } = await sb.control.createClient({ plan: "paid", name });
  const { id } = await createServiceTarget(t.database, TEST_KEY_RING, null, { name, baseUrl: sb.url, apiKey, kind: "sandbox", dailyQuota });
  return { targetId: id, apiKey };
}

const sum = (lines: Line[], key: "pacerSent" | "sent" | "r429" | "ok") => lines.reduce((n, l) => n + l[key], 0);

beforeAll(async () => {
  childModule = bundleChild(path.join("server", "service-client", "shared-budget-child.ts"));
  sb = await startTestSandbox();
  t = await createTestDatabase();
});
afterAll(async () => {
  for (const c of started) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
  await Promise.all(started.map((c) => c.exited));
  await t.close();
  await sb.close();
  childModule.remove();
});

describe("one rate budget per target across processes", () => {
  it("three processes on one machine keep together to a limit of 30 a second, where unshared pacers storm it", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 30 });

    // Without the shared budget each pacer learns the limit alone: three times the limit is tried, and refused.
    const alone = await target("Unshared");
    const unshared = await finished([1, 2, 3].map(() => startPacer({ ...alone, durationMs: 4_000, share: false })));
    const unshared429 = sum(unshared, "r429") / sum(unshared, "sent");
    expect(unshared429).toBeGreaterThan(0.1);

    const shared = await target("Shared");
    const runMs = 8_000;
    const children = [1, 2, 3].map(() => startPacer({ ...shared, durationMs: runMs }));
    const lines = await finished(children);
    const sent = sum(lines, "pacerSent");
    const share429 = sum(lines, "r429") / sum(lines, "sent");
    expect(share429).toBeLessThanOrEqual(FEW_429S);
    // Never more than the limit allows over the seconds the three sent in (from the first request,
    // a line's 200 ms before it at most, to the last), and well used once all three were counted.
    const firstSend = Math.min(...children.map((c) => c.lines.find((l) => l.pacerSent > 0)!.t)) - 200;
    const lastSend = Math.max(...lines.map((l) => l.t));
    const seconds = Math.ceil((lastSend - firstSend) / 1000) + 1;
    expect(sent).toBeLessThanOrEqual(30 * seconds);
    expect(sum(lines, "ok")).toBeGreaterThan(30 * (runMs / 1000 - 4));
    // Every one of them was counted with the others and sent its part.
    for (const c of children) {
      expect(c.lines.some((l) => l.count === 3)).toBe(true);
      expect(c.last()!.ok).toBeGreaterThan(20);
    }
    // Each left, so nothing of them stays in the budget.
    expect(await t.db.select().from(rateBudgetMembers).where(eq(rateBudgetMembers.targetId, shared.targetId))).toEqual([]);
  }, 60_000);

  it("a daily quota of 200 shared by three processes: never more than 200 sent, and what they were granted is what they sent", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 1_000 });
    const quota = await target("Quota of 200", 200);
    // Each runs until the quota is spent (30 s at most), so a busy machine makes this later, not different.
    const children = [1, 2, 3].map(() => startPacer({ ...quota, durationMs: 30_000, knownQuota: 200, untilSpent: true }));
    const lines = await finished(children);
    const sent = sum(lines, "pacerSent");
    expect(sent).toBeLessThanOrEqual(200);
    expect(sent).toBeGreaterThanOrEqual(195); // the quota, but for what blocks in flight at the end held
    expect(sum(lines, "r429")).toBe(0);
    for (const c of children) expect(c.lines.some((l) => l.hold === "quota_spent")).toBe(true);
    // Blocks not used were handed back when each left: the counter holds exactly what was sent.
    const [counter] = await t.db.select().from(rateBudgetQuotas).where(eq(rateBudgetQuotas.targetId, quota.targetId));
    expect(counter).toMatchObject({ quota: 200, granted: sent });

    // The quota is already spent: a process started now sends nothing.
    const late = startPacer({ ...quota, durationMs: 2_500, knownQuota: 200 });
    expect((await finished([late]))[0]!.pacerSent).toBe(0);
    expect(late.lines.some((l) => l.hold === "quota_spent")).toBe(true);
  }, 120_000);

  it("a process killed with SIGKILL: its share goes to the others and its unsent quota back to the counter once its heartbeat is stale", async () => {
    await sb.control.setFaults({ rateLimitPerSecond: 30 });
    const quota = await target("Killed one", 100_000);
    const children = [1, 2, 3].map(() => startPacer({ ...quota, durationMs: 12_000, knownQuota: 100_000 }));
    await until("all three to be counted together", () => children.map((c) => c.last()?.count ?? 0), (counts) => counts.every((n) => n === 3), 30_000);
    await new Promise((r) => setTimeout(r, 1_000));

    const [victim, ...survivors] = children as [Child, Child, Child];
    victim.child.kill("SIGKILL");
    await victim.exited;
    const killedAt = Date.now();
    const members = await t.db.select().from(rateBudgetMembers).where(eq(rateBudgetMembers.targetId, quota.targetId));
    expect(members).toHaveLength(3);

    // Its row stays until its heartbeat is stale, then the next heartbeat of a survivor removes it.
    await until("the survivors to split the window between them", () => survivors.map((c) => c.last()?.count ?? 0), (counts) => counts.every((n) => n === 2), 20_000);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(STALE_MS - HEARTBEAT_MS);
    const after = await t.db.select().from(rateBudgetMembers).where(eq(rateBudgetMembers.targetId, quota.targetId));
    expect(after).toHaveLength(2);
    const dead = members.find((m) => !after.some((a) => a.id === m.id))!;
    // It had taken a block it had not used up; what it could not have sent came back.
    expect(reclaimable(dead)).toBeGreaterThan(0);
    // It never sent more than its last report allowed.
    expect(victim.last()!.pacerSent).toBeLessThanOrEqual(dead.quotaUsed + dead.quotaAhead);

    const lines = await finished(survivors);
    // The survivors sped up to the whole limit between them.
    const late = survivors.map((c) => {
      const from = c.lines.find((l) => l.t >= killedAt + STALE_MS + 2_000)!;
      const to = c.lines.at(-2)!;
      return (to.ok - from.ok) / ((to.t - from.t) / 1000);
    });
    expect(late.reduce((x, y) => x + y, 0)).toBeGreaterThan(30 * 0.75);
    expect(sum(lines, "r429") / sum(lines, "sent")).toBeLessThanOrEqual(FEW_429S);
    // Once both left, the counter holds what they sent, and what the dead one reported plus what it may have sent since.
    const [counter] = await t.db.select().from(rateBudgetQuotas).where(eq(rateBudgetQuotas.targetId, quota.targetId));
    expect(counter!.granted).toBe(sum(lines, "pacerSent") + dead.quotaUsed + dead.quotaAhead);
  }, 90_000);
});
