/** Service targets: the sandbox and real services that engagements migrate into. */
import { z } from "zod";
import { createServiceTarget, listServiceTargets, setEngagementTarget } from "@/server/targets/targets";
import { adminProcedure, createTRPCRouter, staffEngagementProcedure, staffProcedure } from "../trpc";

const ZServiceTarget = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  kind: z.enum(["sandbox", "service"]),
  apiKeyMasked: z.string(),
  createdAt: z.date(),
});

export const targetsRouter = createTRPCRouter({
  /** Every target; API keys only masked. */
  list: staffProcedure.output(z.array(ZServiceTarget)).query(({ ctx }) => listServiceTargets(ctx.db)),
  /** Adds a real service (or another sandbox) with its base URL and API key. */
  create: adminProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, "Name the target, e.g. Production").max(80),
        baseUrl: z.string().trim().min(1, "Enter the base URL, e.g. https://api.codat.io").max(300),
        apiKey: z.string().trim().min(1, "Enter the API key.").max(500),
        kind: z.enum(["sandbox", "service"]).default("service"),
      }),
    )
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => createServiceTarget(ctx.db, ctx.config.keyRing, ctx.actor, input)),
  /** Points an engagement at a target. */
  assign: staffEngagementProcedure
    .input(z.object({ serviceTargetId: z.string().min(1, "Choose a service target.") }))
    .output(z.object({ ok: z.literal(true) }))
    .mutation(({ ctx, input }) => {
      setEngagementTarget(ctx.db, ctx.actor, input);
      return { ok: true as const };
    }),
});
