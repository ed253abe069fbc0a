/**
 * The portfolio at a support team's scale (issue 30): 10,000 engagements across 50 staff and 500
 * organisations (each with one customer user), 2,000 of them with a window. Latency of the portfolio's first page, a filtered
 * page and a grouped one through the tRPC caller, against the named baseline "load-everything":
 * every engagement with all its columns, its organisation, owner, target and windows, clocks
 * computed and filtered in JavaScript.
 * Run: npm run bench -- portfolio [engagements=10000]
 *
 * Then one reminder-and-digest tick over all of it (issue 30, item 5): the reminders due, the staff's
 * daily digests and the customers' weekly ones. And the window calendar (item 3): a month of
 * everyone's windows with the overlap check per target (bench/_portfolio-calendar.ts), against its own
 * load-everything baseline.
 */
import { performance } from "node:perf_hooks";
import { benchCalendar, prepareCalendar } from "./_portfolio-calendar";
import { eq } from "drizzle-orm";
import { engagements, organizations, serviceTargets, users, windowProposals } from "@/db/schema";
import { clockOf, clockTargetsFor } from "@/core/engagements/clocks";
import { callerAs, testConfig } from "@/server/testing/caller";
import { sendRemindersAndDigests } from "@/server/engagements/reminders/send-reminders";
import { asDatabase, createTestDb, seedPeople } from "@/server/testing/test-db";
import { storeMoveDeadlines } from "@/server/engagements/engagement-repository";
import { MANAGED_PLATFORM_KEYS } from "@/server/platforms";

const N = Number(process.argv[2] ?? 10_000);
const STAFF = 50;
const ORGS = 500;
const WINDOWS = 2_000;
const ITER = 40;
const HOUR = 3_600_000;

function p50(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < ITER; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return p50(samples);
}

async function main() {
  const t = createTestDb();
  const people = await seedPeople(t.db);
  const sqlite = t.db.$client;
  const now = Date.now();
  const staff: string[] = [];
  const orgIds: string[] = [];
  const insertUser = sqlite.prepare("insert into users (id, email, name, role, password_hash, created_at) values (?, ?, ?, 'support', 'x', ?)");
  const insertOrg = sqlite.prepare("insert into organizations (id, name, created_at) values (?, ?, ?)");
  const insertCustomer = sqlite.prepare("insert into users (id, email, name, role, organization_id, password_hash, created_at) values (?, ?, ?, 'customer', ?, 'x', ?)");
  const insertTarget = sqlite.prepare("insert into service_targets (id, name, kind, base_url, api_key_cipher, organization_id, created_at) values (?, ?, 'service', ?, 'x', ?, ?)");
  const targetIds: string[] = [];
  sqlite.transaction(() => {
    for (let i = 0; i < STAFF; i++) {
      const id = crypto.randomUUID();
      insertUser.run(id, `staff${i}@bench.test`, `Staff ${String(i).padStart(2, "0")}`, now);
      staff.push(id);
    }
    for (let i = 0; i < ORGS; i++) {
      const id = crypto.randomUUID();
      insertOrg.run(id, `Customer ${i} Ltd`, now);
      orgIds.push(id);
      insertCustomer.run(crypto.randomUUID(), `customer${i}@bench.test`, `Customer ${i}`, id, now);
      if (i % 10 === 0) {
        const tid = crypto.randomUUID();
        insertTarget.run(tid, `Target ${i}`, `https://api${i}.example.test`, id, now);
        targetIds.push(tid);
      }
    }
  })();
  const insertEng = sqlite.prepare(
    `insert into engagements (id, reference, organization_id, platform_key, owner_id, service_target_id, status, current_step, waiting_on, waiting_since,
      window_starts_at, window_ends_at, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertWindow = sqlite.prepare(
    "insert into window_proposals (id, engagement_id, status, starts_at, ends_at, estimate_seconds, estimate, proposed_at) values (?, ?, 'proposed', ?, ?, 3600, '{}', ?)",
  );
  const insertAgreed = sqlite.prepare(
    "insert into window_proposals (id, engagement_id, status, starts_at, ends_at, estimate_seconds, estimate, proposed_at) values (?, ?, 'accepted', ?, ?, 3600, '{}', ?)",
  );
  const statuses = ["active", "active", "active", "active", "on_hold", "completed", "cancelled"] as const;
  let windows = 0;
  sqlite.transaction(() => {
    for (let i = 0; i < N; i++) {
      const id = crypto.randomUUID();
      const status = statuses[i % statuses.length]!;
      const step = status === "completed" ? 7 : 1 + (i % 6);
      const open = status === "active";
      const since = now - (i % 200) * HOUR;
      const agreed = windows < WINDOWS && step >= 3 && i % 3 === 0;
      const startsAt = now + (i % 30) * 24 * HOUR;
      if (agreed) windows++;
      insertEng.run(
        id,
        `FER-${10001 + i}`,
        orgIds[i % ORGS],
        MANAGED_PLATFORM_KEYS[i % 6],
        staff[i % STAFF],
        i % 4 === 0 ? null : targetIds[i % targetIds.length],
        status,
        step,
        open ? (i % 2 ? "customer" : "support") : null,
        open ? since : null,
        agreed ? startsAt : null,
        agreed ? startsAt + 8 * HOUR : null,
        since,
        since,
      );
      if (agreed) insertAgreed.run(crypto.randomUUID(), id, startsAt, startsAt + 8 * HOUR, now);
      if (!agreed && windows < WINDOWS && step === 2 && open) {
        insertWindow.run(crypto.randomUUID(), id, startsAt, startsAt + 8 * HOUR, now);
        windows++;
      }
    }
  })();
  // Each open move's deadlines, as every change stores them.
  const database = asDatabase(t.db);
  const open = sqlite.prepare("select id from engagements where status = 'active'").all() as { id: string }[];
  await database.transaction(function* (tx) {
    for (const { id } of open) yield* storeMoveDeadlines(tx, id);
  }, { isolation: "read committed" });
  console.log(`Seeded ${N} engagements, ${STAFF} staff, ${ORGS} organisations, ${windows} windows\n`);

  const caller = callerAs(t.db, people.support);
  // Baseline "load-everything": every engagement (all columns) with its organisation, owner and
  // target, every window, the clocks computed for all, then filtered, sorted and paged in JavaScript.
  const loadEverything = (risk?: string) => {
    const rows = t.db
      .select({ e: engagements, org: organizations, owner: users, target: serviceTargets })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .innerJoin(users, eq(users.id, engagements.ownerId))
      .leftJoin(serviceTargets, eq(serviceTargets.id, engagements.serviceTargetId))
      .all();
    const allWindows = t.db.select().from(windowProposals).all();
    const at = new Date();
    const open = rows.filter((r) => r.e.status === "active" || r.e.status === "on_hold");
    const withClock = open.map((r) => ({ r, clock: clockOf(r.e, clockTargetsFor(r.org.clockTargets), at), window: allWindows.find((w) => w.engagementId === r.e.id) }));
    const shown = risk ? withClock.filter((x) => x.clock.risk === risk) : withClock;
    shown.sort((a, b) => (a.clock.dueAt?.getTime() ?? Infinity) - (b.clock.dueAt?.getTime() ?? Infinity));
    return shown.slice(0, 50);
  };

  const cases: [string, Parameters<typeof caller.portfolio.get>[0], string | undefined][] = [
    ["first page", {}, undefined],
    ["late only", { risk: "late" }, "late"],
    ["grouped by owner", { group: "owner" }, undefined],
    ["one owner", { ownerId: staff[7] }, undefined],
  ];
  console.log("case                    ferry p50   load-everything p50   speed-up");
  const figures: Record<string, number> = {};
  for (const [name, input, risk] of cases) {
    const ferry = await time(() => caller.portfolio.get(input));
    const base = await time(() => loadEverything(risk));
    console.log(`${name.padEnd(22)}${ferry.toFixed(1).padStart(9)} ms${base.toFixed(1).padStart(18)} ms${(base / ferry).toFixed(1).padStart(10)}×`);
    figures[name] = ferry;
  }
  prepareCalendar(t);
  const calendar = await benchCalendar(t, caller, time);
  console.log(`${"calendar month".padEnd(22)}${calendar.month.toFixed(1).padStart(9)} ms${calendar.base.toFixed(1).padStart(18)} ms${(calendar.base / calendar.month).toFixed(1).padStart(10)}×   (${calendar.windows} windows, ${calendar.flagged} flagged)`);
  // One reminder-and-digest tick over all of it, at 08:00 UTC (the digests are due): the first
  // (every reminder that fell due and every digest, queued), then a second with nothing left to send.
  const notify = { appUrl: "http://ferry.test", mail: testConfig().mail };
  const eight = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 8));
  let t0 = performance.now();
  const first = await sendRemindersAndDigests(database, notify, eight);
  const tickS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const second = await sendRemindersAndDigests(database, notify, new Date(eight.getTime() + 60_000));
  const quietS = (performance.now() - t0) / 1000;
  console.log(`\nreminder-and-digest tick: ${tickS.toFixed(2)} s (${first.reminders} reminders, ${first.digests} daily and ${first.weeklyDigests} weekly digests queued); the next tick ${quietS.toFixed(2)} s (${second.reminders + second.digests + second.weeklyDigests} sent)`);
  const rss = process.memoryUsage().rss / 1024 / 1024;
  console.log(`\nTargets: the first page ≤ 50 ms p50, a calendar month ≤ 50 ms p50, a tick ≤ 2 s. RSS ${rss.toFixed(0)} MB.`);
  t.close();
  console.log(JSON.stringify({ bench: "portfolio", engagements: N, portfolio_p50_ms: Math.round(figures["first page"]! * 10) / 10, calendar_p50_ms: Math.round(calendar.month * 10) / 10, tick_s: Math.round(tickS * 100) / 100 }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
