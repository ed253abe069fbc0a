import { describe, expect, it } from "vitest";
import { linkify } from "./linkify";

describe("linkify", () => {
  it("finds links among text", () => {
    expect(linkify("Set it here:\nhttp://127.0.0.1:3100/invite/abc_DEF-1\nThanks")).toEqual([
      { kind: "text", text: "Set it here:\n" },
      { kind: "link", href: "http://127.0.0.1:3100/invite/abc_DEF-1" },
      { kind: "text", text: "\nThanks" },
    ]);
  });

  it("leaves trailing punctuation outside the link", () => {
    expect(linkify("See https://ferry.test/x.")).toEqual([
      { kind: "text", text: "See " },
      { kind: "link", href: "https://ferry.test/x" },
      { kind: "text", text: "." },
    ]);
  });

  it("returns plain text untouched and ignores other schemes", () => {
    expect(linkify("no links, javascript:alert(1)")).toEqual([{ kind: "text", text: "no links, javascript:alert(1)" }]);
    expect(linkify("")).toEqual([]);
  });
});
