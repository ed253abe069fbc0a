/**
 * tRPC set-up, in three parts: 1. context, 2. initialisation (transformer, error shape, the one
 * place AppError codes become tRPC codes), 3. procedures by audience. After each audience's
 * procedure the context's actor is narrowed in the type, not checked again in handlers.
 */
import { readSteps } from "@/db/database";
import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import type { Database } from "@/db/database";
import type { AppConfig } from "@/server/config";
import { AppError, type AppErrorCode } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { assertCanView } from "@/server/engagements/access";
import { engagementInput } from "./routers/shared.types";
// Input refused without words of its own says a sentence, as the forms do (core/zod-messages.ts).
import "@/core/zod-messages";

// 1. Context ------------------------------------------------------------------------------------

export type Context = {
  /** The app database, SQLite or PostgreSQL (db/database.ts). */
  database: Database;
  /** The signed-in user, loaded fresh from the database; null without a session. */
  actor: Actor | null;
  /** The client's address, for sign-in throttling and the audit log. */
  clientAddress: string | null;
  config: AppConfig;
};

// 2. Initialisation -----------------------------------------------------------------------------

const CODE_MAP: Record<AppErrorCode, TRPC_ERROR_CODE_KEY> = {
  BAD_INPUT: "BAD_REQUEST",
  UNAUTHENTICATED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  PRECONDITION_FAILED: "PRECONDITION_FAILED",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
};

/** Maps an application error to the tRPC error the client receives. */
export function toTRPCError(error: AppError): TRPCError {
  return new TRPCError({ code: CODE_MAP[error.code], message: error.message, cause: error });
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const internal = error.code === "INTERNAL_SERVER_ERROR" && !(cause instanceof AppError);
    if (internal) {
      // The real message may carry internals; the client gets a reference to quote instead.
      const ref = crypto.randomUUID().slice(0, 8);
      console.error(`[trpc] internal error ref=${ref}`, error);
      return {
        ...shape,
        message: `Something went wrong on our side (reference ${ref}).`,
        data: { ...shape.data, stack: undefined, fields: null, zodError: null },
      };
    }
    return {
      ...shape,
      data: {
        ...shape.data,
        stack: undefined,
        zodError: cause instanceof ZodError ? z.flattenError(cause) : null,
        fields: cause instanceof AppError ? (cause.fields ?? null) : null,
      },
    };
  },
});

/** The one place domain errors become tRPC errors. */
const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) throw toTRPCError(result.error.cause);
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

// 3. Procedures ---------------------------------------------------------------------------------

/** Anyone, signed in or not (invitation links, sign-in helpers). */
export const publicProcedure = t.procedure.use(mapAppErrors);

/** Any signed-in user. No session → UNAUTHORIZED. */
export const signedInProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.actor) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return next({ ctx: { ...ctx, actor: ctx.actor } });
});

/** Support staff and admins. Customers → FORBIDDEN. */
export const staffProcedure = signedInProcedure.use(({ ctx, next }) => {
  if (ctx.actor.role !== "support" && ctx.actor.role !== "admin") {
    throw new TRPCError({ code: "FORBIDDEN", message: "This is for support staff only." });
  }
  return next({ ctx });
});

/** Admins only. */
export const adminProcedure = signedInProcedure.use(({ ctx, next }) => {
  if (ctx.actor.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "This is for admins only." });
  return next({ ctx });
});

/** Customer users; the context carries their organisation id as a non-null string. */
export const customerProcedure = signedInProcedure.use(({ ctx, next }) => {
  if (ctx.actor.role !== "customer" || !ctx.actor.organizationId) {
    throw new TRPCError({ code: "FORBIDDEN", message: "This is for customer users only." });
  }
  return next({ ctx: { ...ctx, organizationId: ctx.actor.organizationId } });
});

/** The engagement access check: an unknown id, or for a customer another organisation's → NOT_FOUND. */
const engagementAccess = <Ctx extends { database: Database; actor: Actor }>(opts: {
  ctx: Ctx;
  input: z.infer<typeof engagementInput>;
}) => readSteps(opts.ctx.database, (tx) => assertCanView(tx, opts.ctx.actor, opts.input.engagementId));

/** Staff acting on one engagement (every engagement is theirs to see). */
export const staffEngagementProcedure = staffProcedure.input(engagementInput).use(async ({ ctx, input, next }) => {
  await engagementAccess({ ctx, input });
  return next();
});

/**
 * Anyone who may see the engagement: staff, or a customer of its organisation (others get
 * NOT_FOUND). Every read of an engagement uses it, for the console and the portal alike: the
 * domain function gets the actor and shapes what each side sees (the actions it offers).
 */
export const engagementProcedure = signedInProcedure.input(engagementInput).use(async ({ ctx, input, next }) => {
  await engagementAccess({ ctx, input });
  return next();
});

/** A customer acting on one engagement of their own organisation (accepting a window, acknowledging the handover). */
export const customerEngagementProcedure = customerProcedure.input(engagementInput).use(async ({ ctx, input, next }) => {
  await engagementAccess({ ctx, input });
  return next();
});
