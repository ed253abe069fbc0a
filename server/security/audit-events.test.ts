import { describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { createTestDb } from "@/server/testing/test-db";
import { recordAudit } from "./audit";
import { parseAuditEvent } from "./audit-events";

describe("typed audit events", () => {
  it("stores a valid payload with the action's target type", () => {
    const t = createTestDb();
    try {
      recordAudit(t.db, { actor: null, action: "organization.created", targetId: "o1", after: { name: "Acme" } });
      const row = t.db.select().from(auditEvents).get()!;
      expect(row).toMatchObject({ action: "organization.created", targetType: "organization", after: { name: "Acme" }, before: null });
    } finally {
      t.close();
    }
  });

  it("refuses a payload that does not fit its action, and stores nothing", () => {
    const t = createTestDb();
    try {
      expect(() =>
        recordAudit(t.db, {
          actor: null,
          action: "engagement.status_changed",
          targetId: "e1",
          before: { status: "active" },
          // @ts-expect-error -- not a status: the schema refuses it at run time as the type does at compile time
          after: { status: "paused" },
        }),
      ).toThrow();
      expect(t.db.select().from(auditEvents).all()).toHaveLength(0);
    } finally {
      t.close();
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
