import { describe, expect, it } from "vitest";
import { matches, parseQuery, QueryParseError, sortItems } from "./query";

const item = { name: "Acme Trading", total: 120.5, created: "2025-03-01T10:00:00Z", ok: true, ref: { id: "C-1" } };

describe("query language", () => {
  it.each([
    ["name=acme trading", true],
    ["name!=Acme Trading", false],
    ["name~TRAD", true],
    ["total>100", true],
    ["total<=120.5", true],
    ["total>=121", false],
    ["created>2025-01-01", true],
    ["created<2025-02-28T23:59:59Z", false],
    ["ok=true", true],
    ["ref.id=C-1", true],
    ["missing!=x", true],
    ["name=Other || total>100", true],
    ["name=Other && total>100", false],
    ["{name=Other || name~acme} && total>100", true],
    ["name='Acme Trading'", true],
  ])("%s → %s", (query, expected) => {
    expect(matches(parseQuery(query), item)).toBe(expected);
  });

  it.each(["", "name", "name=", "{name=x", "name=x}", "=x", "name=x &&", "name=x || || y=1"])("refuses %j", (query) => {
    expect(() => parseQuery(query)).toThrow(QueryParseError);
  });

  it("orders by several keys, descending with a minus", () => {
    const rows = [
      { a: 1, b: "x" },
      { a: 2, b: "y" },
      { a: 1, b: "z" },
    ];
    expect(sortItems(rows, [{ property: "a", descending: false }, { property: "b", descending: true }])).toEqual([
      { a: 1, b: "z" },
      { a: 1, b: "x" },
      { a: 2, b: "y" },
    ]);
  });
});
