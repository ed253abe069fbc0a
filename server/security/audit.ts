/**
 * The audit log: every change is an event (actor, action, target, time, before/after), of one of
 * the typed actions in audit-events.ts. Values under secret-looking keys are replaced before they
 * are stored, so no secret reaches it.
 */
import { desc, eq } from "drizzle-orm";
import { auditEvents } from "@/db/schema";
import type { Db } from "@/db/client";
import { actorLabel } from "./actor";
import { type Actor } from "@/core/accounts/actor";
import { auditTargetType, validateAuditPayload, type AuditAction, type AuditPayload } from "./audit-events";

/** A database or a transaction of it (better-sqlite3 transactions are synchronous). */
export type DbOrTx = Pick<Db, "insert" | "select" | "update" | "delete" | "query">;

const SECRET_KEY = /secret|token|password|apikey|api_key|cipher|credential/i;

/** Replaces values under secret-looking keys, recursively (exported for tests). */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? "[redacted]" : redact(v)]),
    );
  }
  return value;
}

export type AuditInput<A extends AuditAction> = {
  actor: Actor | null;
  action: A;
  targetId: string;
  engagementId?: string | null;
  organizationId?: string | null;
  at?: Date;
} & AuditPayload<A>;

/**
 * Records one audit event (call inside the transaction that made the change). The payload is
 * checked against the action's schema, and secret-looking keys are redacted on top of that.
 */
export function recordAudit<A extends AuditAction>(tx: DbOrTx, input: AuditInput<A>): void {
  const payload = validateAuditPayload(input.action, input as { before?: unknown; after?: unknown });
  tx.insert(auditEvents)
    .values({
      at: input.at ?? new Date(),
      actorId: input.actor?.id ?? null,
      actorLabel: actorLabel(input.actor),
      action: input.action,
      targetType: auditTargetType(input.action),
      targetId: input.targetId,
      engagementId: input.engagementId ?? null,
      organizationId: input.organizationId ?? null,
      before: redact(payload.before) as Record<string, unknown> | null,
      after: redact(payload.after) as Record<string, unknown> | null,
    })
    .run();
}

/** An engagement's audit events, newest first. */
export function listAuditEvents(db: DbOrTx, filter: { engagementId: string; limit: number }) {
  return db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.engagementId, filter.engagementId))
    .orderBy(desc(auditEvents.id))
    .limit(filter.limit)
    .all();
}
