import { describe, expect, it } from "vitest";
import { bulkRunEndNotice } from "./run-end-notice";

describe("the customer's notice at the end of a bulk run", () => {
  it("tells the customer how many companies wait for their end customers and what to do", () => {
    const n = bulkRunEndNotice({ supplied: 25, verified: 22, reconnectPending: 3 });
    expect(n).toMatchObject({ to: "customer", subject: "The bulk migration has finished: 3 companies wait for their end customers" });
    expect(n!.text).toMatch(/^The bulk migration has finished: 22 companies of 25 migrated and verified\. 3 companies could not be migrated .* each its reconnect link .* supplementary file\./);
  });

  it("speaks of one company in the singular", () => {
    const n = bulkRunEndNotice({ supplied: 4, verified: 3, reconnectPending: 1 });
    expect(n!.subject).toBe("The bulk migration has finished: 1 company waits for its end customer");
    expect(n!.text).toMatch(/1 company could not be migrated with the tokens given and waits for its end customer .* Send it its reconnect link \(download it as a CSV/);
  });

  it("says nothing when no company waits on the customer (the report's mail follows)", () => {
    expect(bulkRunEndNotice({ supplied: 4, verified: 4, reconnectPending: 0 })).toBeNull();
  });
});
