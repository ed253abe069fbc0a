/**
 * The bulk run as the worker carries it out (a RunWork of engine/work.ts): the worker that claimed
 * it coordinates it (bulk-runner.ts), and any worker with no run of its own helps with its
 * companies, taking the run over where it stands should its coordinator's lease run out. A fault of
 * Ferry's own stops the run with the reason, to be resumed.
 */
import { readSteps } from "@/db/database";
import type { EngineContext, RunWork } from "../engine/work";
import { runToHelp, setBulkStatus } from "./bulk-repository";
import { carryOutBulk, type BulkDeps, type BulkTimings } from "./bulk-runner";

export type BulkWorkOptions = {
  /** The run's own intervals (its probes of a held service, its pace): tests set them short. */
  timings?: Partial<BulkTimings>;
  /** Companies driven at once at most (default 256). */
  maxItems?: number;
  /** Ferry's public URL for the service's webhooks (FERRY_PUBLIC_URL), where a target names none. */
  publicUrl?: string | null;
  /** The web app's own address, where the built-in sandbox posts its webhooks when there is no public URL. */
  sandboxPublicUrl?: string | null;
};

/** What the bulk runner needs of the worker's context, with the bulk run's own options. */
function depsOf(ctx: EngineContext, options: BulkWorkOptions): BulkDeps {
  return {
    database: ctx.database,
    ring: ctx.ring,
    owner: ctx.owner,
    leaseMs: ctx.leaseMs,
    log: ctx.log,
    client: ctx.client,
    notify: ctx.notify,
    budget: ctx.budget,
    ...(ctx.policy ? { policy: ctx.policy } : {}),
    ...(ctx.beforeStore ? { beforeStore: ctx.beforeStore } : {}),
    ...(options.timings ? { timings: options.timings } : {}),
    ...(options.maxItems ? { maxItems: options.maxItems } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.sandboxPublicUrl ? { sandboxPublicUrl: options.sandboxPublicUrl } : {}),
  };
}

/** The bulk run, for the worker. */
export function bulkWork(options: BulkWorkOptions = {}): RunWork {
  return {
    kinds: ["bulk"],
    carryOut: (ctx, run, signal, leases) => carryOutBulk(depsOf(ctx, options), run, signal, true, { leases }),
    async fail(ctx, run, message) {
      const reason = `The worker met a fault of Ferry's own: ${message}. Resume the run to try again.`;
      // setBulkStatus reads the run's outcome with its row locked, then writes it back, fenced on this claim.
      const claim = { owner: ctx.owner, token: run.leaseToken ?? "" };
      await ctx.database.transaction((tx) => setBulkStatus(tx, { runId: run.id, from: ["running"], to: "stopped", reason, now: new Date(), claim }), { isolation: "read committed" });
    },
    help: {
      find: async (ctx) => (await readSteps(ctx.database, (tx) => runToHelp(tx, { owner: ctx.owner, now: new Date() }))) ?? null,
      carryOut: (ctx, run, signal, leases, takeOver) => carryOutBulk(depsOf(ctx, options), run, signal, false, { leases, takeOver }),
    },
  };
}
