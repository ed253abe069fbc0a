import { describe, expect, it } from "vitest";
import { initialStates, type StepStates } from "../checklist";
import type { SubmissionStatus } from "@/core/engagements/flow-states";
import type { EngagementStatus, StepNumber } from "@/core/engagements/states";
import { NO_LAST_MILE, whoseMove, type LastMile, type WaitingInput } from "./waiting-rule";

const done = (...steps: StepNumber[]): StepStates => {
  const s = { ...initialStates() };
  for (const n of steps) s[n] = "done";
  return s;
};

const input = (over: Partial<WaitingInput>): WaitingInput => ({ status: "active", states: initialStates(), submission: null, proposedWindows: 0, ...over });

describe("whose move it is", () => {
  it.each<[string, Partial<WaitingInput>, "customer" | "support" | null, StepNumber | null, RegExp]>([
    ["a new engagement: the customer submits", {}, "customer", 1, /Submit the OAuth app's details and the token file/],
    ["a submission awaits review: support", { submission: "submitted" }, "support", 1, /Review the submitted details/],
    ["sent back: the customer fixes it", { submission: "returned" }, "customer", 1, /Fix the token file/],
    ["accepted, no window yet: support proposes", { states: done(1), submission: "accepted" }, "support", 2, /Propose a migration window/],
    ["a window proposed: the customer accepts", { states: done(1), submission: "accepted", proposedWindows: 2 }, "customer", 2, /Accept one of the proposed.*or decline them/],
    [
      "the proposed windows declined: support proposes again, with the customer's reason",
      { states: done(1), submission: "accepted", windowDecline: { reason: "Month-end close", suggested: 2 } },
      "support",
      2,
      /^Propose new windows: the customer declined the proposed ones \(“Month-end close”\) and suggested 2 times\.$/,
    ],
    ["a test running: support follows it, nothing to start", { states: done(1, 2, 3, 4), submission: "accepted", testUnderWay: { kind: "pilot", queued: false } }, "support", 5, /^Follow the single-company test in step 5: it is running/],
    ["a rehearsal queued: support follows it", { states: done(1, 2, 3, 4), submission: "accepted", testUnderWay: { kind: "rehearsal", queued: true } }, "support", 5, /^Follow the rehearsal on the sandbox in step 5: it is waiting for a worker/],
    ["window agreed, callback URL open: the customer", { states: done(1, 2), submission: "accepted" }, "customer", 3, /callback URL/],
    ["steps 3 done out of order, 2 open: still step 2 first", { states: done(1, 3), submission: "accepted" }, "support", 2, /Propose/],
    ["syncing open: the customer", { states: done(1, 2, 3), submission: "accepted" }, "customer", 4, /syncing/],
    ["1–4 done: support tests", { states: done(1, 2, 3, 4), submission: "accepted" }, "support", 5, /single-company test/],
    ["5 done: support migrates", { states: done(1, 2, 3, 4, 5), submission: "accepted" }, "support", 6, /bulk migration/],
    ["all done: nobody", { states: done(1, 2, 3, 4, 5, 6), submission: "accepted" }, null, null, /every step is done/],
  ])("%s", (_, over, party, step, next) => {
    expect(whoseMove(input(over))).toMatchObject({ party, step, next: expect.stringMatching(next) });
  });

  it("a test under way is support's move to follow, not to start", () => {
    expect(whoseMove(input({ states: done(1, 2, 3, 4), submission: "accepted", testUnderWay: { kind: "pilot", queued: false } })).moves.support).toMatchObject({ action: "follow_test", step: 5 });
    expect(whoseMove(input({ states: done(1, 2, 3, 4), submission: "accepted", testUnderWay: null })).moves.support).toMatchObject({ action: "run_test" });
  });

  it("while support has the move on steps 1 and 2, adding the callback URL is the customer's own to-do beside it", () => {
    const reviewing = whoseMove(input({ submission: "submitted" }));
    expect(reviewing).toMatchObject({ party: "support", moves: { support: { action: "review_submission" }, customer: { action: "confirm_callback", step: 3 } } });
    expect(whoseMove(input({ states: done(1), submission: "accepted" })).moves.customer).toMatchObject({ action: "confirm_callback" });
    // Done already, or the customer's own move comes first: nothing beside it.
    expect(whoseMove(input({ states: done(3), submission: "submitted" })).moves.customer).toBeNull();
    expect(whoseMove(input({})).moves.customer).toMatchObject({ action: "submit_file" });
  });

  it.each<EngagementStatus>(["on_hold", "completed", "cancelled"])("nobody's while the engagement is %s", (status) => {
    expect(whoseMove(input({ status, submission: "submitted" }))).toMatchObject({ party: null, step: null });
  });

  it("follows the submission whatever its status", () => {
    const by: Record<SubmissionStatus | "none", "customer" | "support"> = { none: "customer", submitted: "support", accepted: "support", returned: "customer", replaced: "customer" };
    for (const [status, party] of Object.entries(by)) {
      expect(whoseMove(input({ submission: status === "none" ? null : (status as SubmissionStatus) })).party).toBe(party);
    }
  });

  describe("after the bulk run, to the end", () => {
    const at6 = (lastMile: Partial<LastMile>, status: EngagementStatus = "active", states = done(1, 2, 3, 4, 5)) =>
      whoseMove(input({ status, states, submission: "accepted", lastMile: { ...NO_LAST_MILE, ...lastMile } }));

    it("while the run is going: support's, and the customer has nothing to do", () => {
      expect(at6({})).toMatchObject({ party: "support", moves: { customer: null, support: { action: "run_bulk" } } });
    });

    it("the run ended with companies waiting for their end customers: support produces the report, the customer sends the links", () => {
      const w = at6({ bulkRunEnded: true, reconnectPending: 3 });
      expect(w).toMatchObject({ party: "support", step: 6, next: expect.stringMatching(/report.*3 companies/) });
      expect(w.moves.customer).toMatchObject({ action: "send_reconnect_links", text: expect.stringMatching(/3 companies .*reconnect link.*supplementary file/) });
    });

    it("after the report: the customer's, to acknowledge it (and the links still named)", () => {
      const w = at6({ bulkRunEnded: true, handover: { acknowledged: false }, reconnectPending: 2 });
      expect(w).toMatchObject({ party: "customer", step: 6, moves: { customer: { action: "acknowledge_report" }, support: null } });
      expect(w.next).toMatch(/acknowledge it.*2 companies/);
      expect(at6({ bulkRunEnded: true, handover: { acknowledged: false } })).toMatchObject({ party: "customer", next: "Read the handover report and acknowledge it." });
    });

    it("fresh tokens sent for some of the waiting companies: the customer is told they are under review, and asked only about the others", () => {
      const some = at6({ bulkRunEnded: true, handover: { acknowledged: false }, reconnectPending: 2, supplementary: "submitted", freshTokensInReview: 1 });
      expect(some.moves.customer?.text).toMatch(/Fresh tokens for 1 company are with Ferry support for review\. One other company was not migrated .* send it its reconnect link/);
      expect(some.moves.support).toMatchObject({ action: "review_supplementary", text: expect.stringMatching(/for 1 company waiting/) });
      // The review is support's pending action, so the engagement is in support's queue though the report waits on the customer too.
      expect(some).toMatchObject({ party: "support", moves: { customer: { action: "acknowledge_report" } } });
      const all = at6({ bulkRunEnded: true, handover: { acknowledged: true }, reconnectPending: 2, supplementary: "submitted", freshTokensInReview: 2 }, "completed", done(1, 2, 3, 4, 5, 6));
      expect(all).toMatchObject({ party: "support", moves: { customer: null, support: { action: "review_supplementary" } } });
    });

    it("a supplementary file waits for support's review, before and after the handover", () => {
      expect(at6({ bulkRunEnded: true, reconnectPending: 2, supplementary: "submitted" })).toMatchObject({ party: "support", moves: { support: { action: "review_supplementary" } } });
      const completed = at6({ bulkRunEnded: true, handover: { acknowledged: true }, reconnectPending: 2, supplementary: "submitted" }, "completed", done(1, 2, 3, 4, 5, 6));
      expect(completed).toMatchObject({ party: "support", moves: { support: { action: "review_supplementary" }, customer: { action: "send_reconnect_links" } } });
    });

    it("drops the watch found that support has not looked at: support's move, after a review of fresh tokens", () => {
      const seenNot = at6({ bulkRunEnded: true, handover: { acknowledged: true }, reconnectPending: 1, unseenDrops: 2 }, "completed", done(1, 2, 3, 4, 5, 6));
      expect(seenNot).toMatchObject({ party: "support", moves: { support: { action: "look_at_drops", text: expect.stringMatching(/^2 migrated connections dropped .* mark them seen\.$/) }, customer: { action: "send_reconnect_links" } } });
      expect(at6({ bulkRunEnded: true, handover: { acknowledged: false }, reconnectPending: 1, unseenDrops: 1 })).toMatchObject({ party: "support", moves: { support: { action: "look_at_drops" }, customer: { action: "acknowledge_report" } } });
      expect(at6({ bulkRunEnded: true, reconnectPending: 1, supplementary: "submitted", unseenDrops: 1 }).moves.support?.action).toBe("review_supplementary");
    });

    it("handed over and acknowledged: the customer's while companies still wait for their end customers, else nobody's", () => {
      const closed = (pending: number) => at6({ bulkRunEnded: true, handover: { acknowledged: true }, reconnectPending: pending }, "completed", done(1, 2, 3, 4, 5, 6));
      expect(closed(1)).toMatchObject({ party: "customer", moves: { customer: { action: "send_reconnect_links", text: expect.stringMatching(/^1 company /) } } });
      expect(closed(0)).toMatchObject({ party: null, moves: { customer: null, support: null } });
    });
  });
});
