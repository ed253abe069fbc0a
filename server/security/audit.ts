/**
 * The audit log: every change is an event (actor, action, target, time, before/after).
 * Values under secret-looking keys are replaced before they are stored, so no secret reaches it.
 */
import { auditEvents } from "@/db/schema";
import type { Db } from "@/db/client";
import { actorLabel, type Actor } from "./actor";

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

export type AuditInput = {
  actor: Actor | null;
  action: string;
  targetType: string;
  targetId: string;
  engagementId?: string | null;
  organizationId?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  at?: Date;
};

/** Records one audit event (call inside the transaction that made the change). */
export function recordAudit(tx: DbOrTx, input: AuditInput): void {
  tx.insert(auditEvents)
    .values({
      at: input.at ?? new Date(),
      actorId: input.actor?.id ?? null,
      actorLabel: actorLabel(input.actor),
      action: input.action,
      targetType: input.targetType,
      targetId: input.targetId,
      engagementId: input.engagementId ?? null,
      organizationId: input.organizationId ?? null,
      before: (redact(input.before ?? null) as Record<string, unknown> | null) ?? null,
      after: (redact(input.after ?? null) as Record<string, unknown> | null) ?? null,
    })
    .run();
}
