import { describe, expect, it } from "vitest";
import { describeAuditEvent } from "./timeline";

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
