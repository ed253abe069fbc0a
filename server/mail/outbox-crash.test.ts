/**
 * The crash: a real process commits a change that queues mail, claims one message to send it, and
 * is killed (SIGKILL) before it sends anything. Real worker processes (server/migration/
 * worker-main.ts, as `npm run worker` starts it) started afterwards deliver every queued message
 * exactly once: the one the dead process claimed once its lease has run out, the others at once.
 *
 * Runs on both databases: processes of their own claiming the same outbox.
 * @module-tag both-databases
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailOutbox } from "@/db/schema";
import { createUserWithPassword } from "@/server/accounts/users";
import { generateKeySpec } from "@/server/security/secrets";
import { bundleChild, type BundledChild } from "@/server/testing/bundle-child";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { until } from "@/server/testing/until";

const KEY_SPEC = generateKeySpec("crash");
const LEASE_MS = 1_500;

type Proc = { child: ChildProcess; lines: string[]; exited: Promise<number | null> };

let t: TestDatabase;
let people: People;
const started: Proc[] = [];

/** The environment without SMTP_URL: the embedded outbox, whose deliveries are the workers' log lines. */
function withoutSmtp(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { SMTP_URL: _smtp, ...rest } = env;
  return rest;
}

/**
 * The crashing child and the worker, each bundled once (bundle-child.ts): a process starts in about
 * half a second instead of tsx's command line starting Node, which compiles the modules one by one.
 */
const bundles = new Map<string, BundledChild>();

function start(entry: string, extra: Record<string, string> = {}): Proc {
  let bundle = bundles.get(entry);
  if (!bundle) bundles.set(entry, (bundle = bundleChild(entry)));
  // Its own process group, so SIGKILL reaches whatever it started too.
  const child = spawn(process.execPath, [bundle.file], {
    cwd: process.cwd(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...withoutSmtp(process.env), ...t.env, FERRY_ENCRYPTION_KEY: KEY_SPEC, NEXTAUTH_SECRET: "outbox-crash-test-secret", NODE_ENV: "test", ...extra },
  });
  const lines: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  child.stderr!.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const p = { child, lines, exited };
  started.push(p);
  return p;
}

beforeAll(async () => {
  t = await createTestDatabase();
  people = await seedPeople(t.database);
  // Three people of the organisation: the change queues a message to each.
  for (const n of [2, 3]) await createUserWithPassword(t.database, { email: `customer${n}@org-a.test`, name: `Customer ${n}`, role: "customer", organizationId: people.orgA, password: "a long enough password" });
});
afterAll(async () => {
  for (const p of started) {
    if (p.child.exitCode === null && p.child.signalCode === null && p.child.pid) process.kill(-p.child.pid, "SIGTERM");
    await p.exited;
  }
  await t.close();
  for (const bundle of bundles.values()) bundle.remove();
});

describe("a process killed after its change committed, before its mail was sent", () => {
  it("leaves the mail queued; restarted workers send each message exactly once", async () => {
    const crashing = start("server/testing/mail-crash-child.ts", {
      CRASH_ACTOR: JSON.stringify(people.support),
      CRASH_ORGANIZATION: people.orgA,
      CRASH_LEASE_MS: String(LEASE_MS),
    });
    const said = await until("the change to commit and a message to be claimed", () => crashing.lines.find((l) => l.startsWith("committed ")) ?? crashing.lines.join("\n"), (l) => l.startsWith("committed "), 60_000);
    const claimedId = /claimed (\S+)$/.exec(said)?.[1];
    process.kill(-crashing.child.pid!, "SIGKILL");
    await crashing.exited;

    const queued = await t.db.select().from(mailOutbox);
    expect(queued).toHaveLength(3);
    expect(queued.every((m) => m.sentAt === null)).toBe(true);
    expect(queued.find((m) => m.id === claimedId)).toMatchObject({ claimToken: "crashed-sender", attempts: 1 });

    // Two workers, as a restart of several would be: they look for mail every 100 ms.
    const workers = [start("server/migration/worker-main.ts", { FERRY_MAIL_EVERY_MS: "100" }), start("server/migration/worker-main.ts", { FERRY_MAIL_EVERY_MS: "100" })];
    await until("every message to be sent", async () => (await t.db.select().from(mailOutbox)).filter((m) => !m.sentAt).length, (n) => n === 0, 60_000);
    // A while longer, many looks of both workers: nothing is sent again.
    await new Promise((r) => setTimeout(r, 1_000));

    const sent = await t.db.select().from(mailOutbox);
    const logged = workers.flatMap((w) => w.lines).filter((l) => l.startsWith("[mail] to="));
    // The workers' own reminder tick may queue more on the real clock (the customers' weekly digest
    // goes any day of the week): every message in the outbox is sent, each exactly once.
    expect(sent.length).toBeGreaterThanOrEqual(queued.length);
    expect(logged).toHaveLength(sent.length);
    for (const m of sent) {
      expect(logged.filter((l) => l.startsWith(`[mail] to=${m.to} `) && l.includes(m.subject))).toHaveLength(1);
      expect(m.sentAt).toBeInstanceOf(Date);
      expect(m.attempts).toBe(m.id === claimedId ? 2 : 1);
    }
    // The message the dead process held was sent only after its lease ran out.
    const held = sent.find((m) => m.id === claimedId)!;
    expect(held.sentAt!.getTime()).toBeGreaterThanOrEqual(queued.find((m) => m.id === claimedId)!.claimExpiresAt!.getTime());
  }, 120_000);
});
