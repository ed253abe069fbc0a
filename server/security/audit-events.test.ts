import { describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { createTestDatabase, type TestDatabase } from "@/server/testing/test-db";
import { writeAudit, type AuditInput } from "./audit";
import { parseAuditEvent, type AuditAction } from "./audit-events";

/** One audit event written as its own transaction. */
const audit = <A extends AuditAction>(t: TestDatabase, input: AuditInput<A>) => t.database.transaction((tx) => writeAudit(tx, input), { isolation: "read committed" });

describe("typed audit events", () => {
  it("stores a valid payload with the action's target type", async () => {
    const t = await createTestDatabase();
    try {
      await audit(t, { actor: null, action: "organization.created", targetId: "o1", after: { name: "Acme" } });
      const [row] = await t.db.select().from(auditEvents).limit(1);
      expect(row).toMatchObject({ action: "organization.created", targetType: "organization", after: { name: "Acme" }, before: null });
    } finally {
      await t.close();
    }
  });

  it("refuses a payload that does not fit its action, and stores nothing", async () => {
    const t = await createTestDatabase();
    try {
      await expect(
        audit(t, {
          actor: null,
          action: "engagement.status_changed",
          targetId: "e1",
          before: { status: "active" },
          // @ts-expect-error -- not a status: the schema refuses it at run time as the type does at compile time
          after: { status: "paused" },
        }),
      ).rejects.toThrow();
      expect(await t.db.select().from(auditEvents)).toHaveLength(0);
    } finally {
      await t.close();
    }
  });

  it("reads rows back as typed events, and unknown or misshapen rows as nothing", () => {
    expect(parseAuditEvent({ action: "step.completed", before: null, after: { step: 3, note: "ok" } })).toEqual({
      action: "step.completed",
      before: null,
      after: { step: 3, note: "ok" },
    });
    expect(parseAuditEvent({ action: "step.completed", before: null, after: { step: 9 } })).toBeNull();
    expect(parseAuditEvent({ action: "no.such_action", before: null, after: null })).toBeNull();
  });
});
