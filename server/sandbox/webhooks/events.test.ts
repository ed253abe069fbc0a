/** The event rules on their own: which connection write makes which event, who gets a message, which names are events. */
import { describe, expect, it } from "vitest";
import { connectionEventOf, consumerWants, isEventType } from "./events";

const error = { status: "Active" };
const resolved = { status: "Resolved" };

describe("connectionEventOf", () => {
  it.each([
    ["a new PendingAuth connection", undefined, { status: "PendingAuth", errors: [] }, false, "connection.created"],
    ["a first Linked", { status: "PendingAuth", errors: [] }, { status: "Linked", errors: [] }, true, "connection.connected"],
    ["Linked again after a drop", { status: "Deauthorized", errors: [error] }, { status: "Linked", errors: [resolved] }, false, "connection.reconnected"],
    ["a first Linked after a refused migration", { status: "Deauthorized", errors: [error] }, { status: "Linked", errors: [resolved] }, true, "connection.connected"],
    ["unlinked", { status: "Linked", errors: [] }, { status: "Unlinked", errors: [] }, false, "connection.disconnected"],
    ["deauthorized", { status: "Linked", errors: [] }, { status: "Deauthorized", errors: [error] }, false, "connection.disconnected"],
    ["a refused migration", { status: "PendingAuth", errors: [] }, { status: "Deauthorized", errors: [error] }, false, "connection.failed"],
    ["a second refused migration", { status: "Deauthorized", errors: [error] }, { status: "Deauthorized", errors: [resolved, error] }, false, "connection.failed"],
    ["a lastSync update", { status: "Linked", errors: [] }, { status: "Linked", errors: [] }, false, null],
  ] as const)("%s", (_, before, after, firstLinked, expected) => {
    expect(connectionEventOf({ before, after, firstLinked })).toBe(expected);
  });
});

describe("consumerWants", () => {
  it("needs the event type, and one of the consumer's company tags when it names any", () => {
    const all = { eventTypes: ["read.completed"], companyTags: null };
    const uk = { eventTypes: ["read.completed"], companyTags: ["region:uk", "tier:gold"] };
    expect(consumerWants(all, { eventType: "read.completed", companyTags: [] })).toBe(true);
    expect(consumerWants(all, { eventType: "connection.connected", companyTags: [] })).toBe(false);
    expect(consumerWants(uk, { eventType: "read.completed", companyTags: ["tier:gold"] })).toBe(true);
    expect(consumerWants(uk, { eventType: "read.completed", companyTags: ["region:UK"] })).toBe(false);
    expect(consumerWants(uk, { eventType: "read.completed", companyTags: null })).toBe(false);
    expect(consumerWants({ ...uk, companyTags: [] }, { eventType: "read.completed", companyTags: null })).toBe(true);
  });
});

describe("isEventType", () => {
  it("knows the documented names and {dataType}.write.*", () => {
    expect(isEventType("client.rateLimit.reset")).toBe(true);
    expect(isEventType("invoices.write.unsuccessful")).toBe(true);
    expect(isEventType("notAType.write.successful")).toBe(false);
    expect(isEventType("DataSyncCompleted")).toBe(false);
  });
});
