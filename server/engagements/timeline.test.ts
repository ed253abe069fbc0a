import { describe, expect, it } from "vitest";
import { describeAuditEvent, describeEventRun, isPerCompanyAction } from "./timeline";

describe("timeline wording", () => {
  it("describes a reopen with its cascade, without doubled punctuation", () => {
    expect(
      describeAuditEvent({ action: "step.reopened", before: null, after: { step: 1, reason: "Customer re-registered the app.", cascade: [2, 5] } }),
    ).toBe("Reopened step 1 (Details gathered): Customer re-registered the app; also reopened step 2 (Time agreed), step 5 (Single-company test)");
  });

  it("describes status changes, completions with notes, and unknown actions", () => {
    expect(describeAuditEvent({ action: "engagement.status_changed", before: { status: "active" }, after: { status: "on_hold" } })).toBe(
      "Changed status from active to on hold",
    );
    expect(describeAuditEvent({ action: "step.completed", before: null, after: { step: 3, note: "Confirmed by email." } })).toBe(
      "Completed step 3 (Callback URL added): Confirmed by email",
    );
    expect(describeAuditEvent({ action: "secret.decrypted", before: null, after: null })).toBe("secret decrypted");
  });
});

describe("timeline wording of typed events", () => {
  it("names the platform of a creation event by its key, and of an older event by its stored name", () => {
    expect(
      describeAuditEvent({ action: "engagement.created", before: null, after: { reference: "FER-1", organization: "Acme", platformKey: "qhyg", owner: "Sam" } }),
    ).toBe("Created the engagement for Acme on QuickBooks Online, owned by Sam");
    expect(
      describeAuditEvent({ action: "engagement.created", before: null, after: { reference: "FER-1", organization: "Acme", platform: "Wave", owner: "Sam" } }),
    ).toBe("Created the engagement for Acme on Wave, owned by Sam");
  });
});

describe("the bulk migration's start", () => {
  it("says a start outside the agreed window, by how much and why; a start inside it as before", () => {
    const after = { companies: 24, target: "Acme sandbox" };
    expect(describeAuditEvent({ action: "migration.bulk_started", before: null, after })).toBe("Started the bulk migration of 24 companies on Acme sandbox");
    expect(
      describeAuditEvent({
        action: "migration.bulk_started",
        before: null,
        after: { ...after, outsideWindow: { position: "before", startsAt: "2031-03-01T22:00:00.000Z", endsAt: "2031-03-02T04:00:00.000Z", bySeconds: 266_400, reason: "The customer asked to start early." } },
      }),
    ).toBe("Started the bulk migration of 24 companies on Acme sandbox, 3 d 2 h before the agreed window 1 Mar 2031, 22:00 – 2 Mar 2031, 04:00 UTC: The customer asked to start early");
  });
});

describe("timeline wording of the bulk run and the handover", () => {
  const reconciliation = {
    supplied: 25,
    created: 25,
    linked: 23,
    synced: 23,
    verified: 23,
    reconnectPending: 0,
    reauthRequired: 2,
    setAside: 0,
    failed: 0,
    inProgress: 0,
    pilot: { name: "Harbour Books Ltd", state: "verified" },
  };
  const words =
    "25 companies supplied: 25 created on the service, 23 linked, 23 synced; 23 verified, 2 reauthorization required (the single-company test's company, Harbour Books Ltd, included)";

  it("says the engagement's reconciliation where the event recorded it", () => {
    expect(describeAuditEvent({ action: "migration.bulk_finished", before: null, after: { counts: { verified: 22, reauth_required: 2 }, reconciliation } })).toBe(
      `The bulk migration finished: ${words}`,
    );
    expect(describeAuditEvent({ action: "handover.confirmed", before: null, after: { total: 25, counts: { verified: 23, reauth_required: 2 }, reconciliation } })).toBe(
      `Produced the handover report: ${words}`,
    );
    expect(
      describeAuditEvent({ action: "migration.bulk_started", before: null, after: { companies: 24, target: "Acme's account", supplied: 25, pilot: "Harbour Books Ltd" } }),
    ).toBe("Started the bulk migration of 24 companies on Acme's account (of 25 companies supplied; Harbour Books Ltd was migrated by the single-company test)");
  });

  it("keeps the words of older events, recorded before the reconciliation", () => {
    expect(describeAuditEvent({ action: "migration.bulk_finished", before: null, after: { counts: { verified: 22, reauth_required: 2 } } })).toBe(
      "The bulk migration finished: 22 verified, 2 reauthorization required",
    );
    expect(describeAuditEvent({ action: "handover.confirmed", before: null, after: { total: 25, counts: { verified: 23, reauth_required: 2 } } })).toBe(
      "Produced the handover report for 25 companies (23 verified, 2 reauthorization required)",
    );
    expect(describeAuditEvent({ action: "migration.bulk_started", before: null, after: { companies: 24, target: "Acme's account" } })).toBe(
      "Started the bulk migration of 24 companies on Acme's account",
    );
  });
});

describe("a run of the machine's per-company events in one line", () => {
  const run = (action: string, count: number, names: string[] = [], purpose: string | null = null, rehearsal = false) => ({ action, purpose, rehearsal, count, names });

  it("counts the companies, names the first few, and says what was done to them", () => {
    expect(describeEventRun(run("supplementary.tokens_purged", 3, ["Co 1", "Co 2", "Co 3"]))).toBe("Deleted the fresh tokens of 3 companies once used (Co 1, Co 2 and Co 3)");
    expect(describeEventRun(run("migration_item.reconnected", 5, ["Co 1", "Co 2", "Co 3"]))).toBe(
      "5 companies were reconnected by their end customers (Co 1, Co 2, Co 3 and 2 more): syncing and verifying them again",
    );
    expect(describeEventRun(run("migration_item.credentials_decrypted", 2, [], "authorize its connection on the service", true))).toBe(
      "Decrypted the simulated credentials of 2 companies to authorize them (rehearsal)",
    );
    expect(describeEventRun(run("migration_item.credentials_decrypted", 24, [], "authorize its connection on the service"))).toBe("Decrypted the credentials of 24 companies to authorize them");
  });

  it("runs together only the machine's per-company kinds of event", () => {
    expect(isPerCompanyAction("migration_item.credentials_decrypted")).toBe(true);
    expect(isPerCompanyAction("supplementary.tokens_purged")).toBe(true);
    expect(isPerCompanyAction("migration_item.dropped")).toBe(false);
    expect(isPerCompanyAction("step.completed")).toBe(false);
  });
});
