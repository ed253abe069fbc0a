/**
 * One pacer in a process of its own, for shared-budget-processes.test.ts: it joins a target's
 * shared rate budget on Ferry's database (unless BUDGET_SHARE=0) and sends GET /companies through
 * its pacer from several callers until its time is up, then leaves the budget. Every 200 ms it
 * prints one JSON line of what it has done, and a last one with `done: true`.
 *
 * Env: DATABASE_URL (PostgreSQL) or DATABASE_FILE (SQLite), BUDGET_TARGET_ID, BUDGET_MACHINE_ID, BUDGET_KNOWN_QUOTA (empty: none),
 * BUDGET_SHARE, SANDBOX_URL, SANDBOX_API_KEY, BUDGET_DURATION_MS, BUDGET_CALLERS, BUDGET_UNTIL_SPENT (1: stop
 * as soon as the pacer holds for a spent daily quota, BUDGET_DURATION_MS being then only a ceiling), and
 * BUDGET_HEARTBEAT_MS and BUDGET_STALE_MS (the budget's intervals; empty: the defaults).
 */
import { getDatabase } from "@/db/database";
import { createBudgetStore } from "./budget-store";
import { createPacer } from "./pacer";
import { joinSharedBudget } from "./shared-budget";

async function main(): Promise<void> {
  const e = process.env;
  // The database the environment names (db/database.ts): PostgreSQL with DATABASE_URL, else SQLite at DATABASE_FILE.
  const database = getDatabase();
  const timings = {
    ...(e.BUDGET_HEARTBEAT_MS ? { heartbeatMs: Number(e.BUDGET_HEARTBEAT_MS) } : {}),
    ...(e.BUDGET_STALE_MS ? { staleMs: Number(e.BUDGET_STALE_MS) } : {}),
  };
  const share =
    e.BUDGET_SHARE === "0"
      ? null
      : joinSharedBudget({
          store: createBudgetStore(database, timings),
          ...timings,
          targetId: e.BUDGET_TARGET_ID!,
          machineId: e.BUDGET_MACHINE_ID ?? "test-machine",
          knownDailyQuota: e.BUDGET_KNOWN_QUOTA ? Number(e.BUDGET_KNOWN_QUOTA) : null,
          log: (line) => console.error(line),
        });
  const pacer = createPacer({ share, initialConcurrency: 8, maxConcurrency: 64 });
  const authorization = `Basic ${Buffer.from(e.SANDBOX_API_KEY!).toString("base64")}`;
  const deadline = Date.now() + Number(e.BUDGET_DURATION_MS ?? 5_000);
  const counts = { sent: 0, ok: 0, r429: 0, failed: 0 };

  const report = (done = false) => {
    const state = share?.state();
    console.log(
      JSON.stringify({
        t: Date.now(),
        ...counts,
        // Requests the pacer let go (answered or not): what the service may have counted.
        pacerSent: pacer.stats().sent,
        ready: share?.ready() ?? true,
        count: state?.share.ready ? state.share.count : null,
        taken: state?.quota?.taken ?? null,
        used: state?.quota?.used ?? null,
        hold: pacer.stats().hold?.reason ?? null,
        done,
      }),
    );
  };
  const ticker = setInterval(report, 200);
  // One signal ends every request: the deadline, or (BUDGET_UNTIL_SPENT=1) the quota spent, so a busy
  // machine makes the run later, not different. (One controller, not AbortSignal.any over a timeout:
  // Node 20 may collect the timeout's signal and the combined one then never aborts.)
  const stop = new AbortController();
  const deadlineTimer = setTimeout(() => stop.abort(), Math.max(1, deadline - Date.now()));
  const watchSpent =
    e.BUDGET_UNTIL_SPENT === "1"
      ? setInterval(() => {
          if (pacer.stats().hold?.reason === "quota_spent") stop.abort();
        }, 20)
      : null;

  const caller = async () => {
    while (!stop.signal.aborted) {
      const signal = stop.signal;
      try {
        const response = await pacer.fetch(`${e.SANDBOX_URL}/companies?page=1&pageSize=1`, { headers: { Authorization: authorization }, signal });
        counts.sent += 1;
        await response.arrayBuffer();
        if (response.status === 429) counts.r429 += 1;
        else if (response.ok) counts.ok += 1;
      } catch {
        // Still waiting in the pacer when the time was up (never sent), or no answer.
        if (!stop.signal.aborted) counts.failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Number(e.BUDGET_CALLERS ?? 8) }, caller));
  clearInterval(ticker);
  clearTimeout(deadlineTimer);
  if (watchSpent) clearInterval(watchSpent);
  await share?.leave();
  report(true);
  await database.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
