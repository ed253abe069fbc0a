/**
 * The XML scanner that bounds what exceljs's streaming reader would gather: each limit, counted the
 * way the reader gathers (a value's text runs from where the reader starts a new value, whatever
 * tags, comments or CDATA come between), on bytes split anywhere, and a real workbook's parts
 * passing untouched.
 */
import { describe, expect, it } from "vitest";
import { getManagedPlatform } from "@/server/platforms";
import { headerFor, rowFor, streamedXlsxBytes } from "../testing/token-files";
import { limitsFor, XmlBounds, type XmlBreach, type XmlLimits, type XmlPartKind } from "./xml-bounds";
import { readZipDirectory } from "./zip-directory";
import { checkParts } from "./workbook-parts";

const small: XmlLimits = { tagBytes: 64, depth: 6, cellBytes: 20, elements: 50, rowElements: 12, rowTextBytes: 40, columns: 16_384, cells: 20 };

/** Scans `xml` in chunks of `size` bytes; the first breach, or null. */
function scan(kind: XmlPartKind, xml: string, options: { limits?: XmlLimits; size?: number } = {}): XmlBreach | null {
  const bounds = new XmlBounds(kind, options.limits ?? small);
  const bytes = Buffer.from(xml, "utf8");
  const size = options.size ?? bytes.length;
  for (let at = 0; at < bytes.length; at += size) {
    const breach = bounds.write(bytes.subarray(at, at + size));
    if (breach) return breach;
  }
  return null;
}

/** Scans with every chunk size from 1 to 7 bytes and whole; all must agree. */
function scanSplit(kind: XmlPartKind, xml: string, limits: XmlLimits = small): XmlBreach | null {
  const whole = scan(kind, xml, { limits });
  for (let size = 1; size <= 7; size++) expect(scan(kind, xml, { limits, size })).toEqual(whole);
  return whole;
}

const sheet = (rows: string) => `<worksheet><sheetData>${rows}</sheetData></worksheet>`;

describe("a worksheet cell's text", () => {
  it("passes a value of the limit and refuses one byte more, naming the cell", () => {
    expect(scanSplit("worksheet", sheet(`<row r="7"><c r="B7" t="inlineStr"><is><t>${"a".repeat(20)}</t></is></c></row>`))).toBeNull();
    expect(scanSplit("worksheet", sheet(`<row r="7"><c r="B7" t="inlineStr"><is><t>${"a".repeat(21)}</t></is></c></row>`))).toEqual({ limit: "cell_text", cell: "B7" });
  });

  it("counts text after the value up to the next value, as the reader appends it", () => {
    const between = `<row r="1"><c r="A1"><v>1</v>${" ".repeat(12)}</c><x/>${" ".repeat(12)}`;
    expect(scanSplit("worksheet", sheet(between))).toEqual({ limit: "cell_text", cell: null });
    // A new value in a cell starts the count again.
    expect(scanSplit("worksheet", sheet(`<row r="1"><c r="A1"><v>${"1".repeat(15)}</v></c><c r="B1"><v>${"2".repeat(15)}</v></c></row>`))).toBeNull();
  });

  it("does not start a new count at a value tag outside a cell, where the reader does not either", () => {
    const outside = `<row r="1"><c r="A1"><v>1</v></c><v>${"a".repeat(12)}</v><v>${"a".repeat(12)}</v></row>`;
    expect(scanSplit("worksheet", sheet(outside))).toEqual({ limit: "cell_text", cell: null });
  });

  it("counts CDATA and comments as text, and a tag inside CDATA as text too", () => {
    expect(scanSplit("worksheet", sheet(`<row r="1"><c r="C1"><v><![CDATA[${"a".repeat(20)}]]></v></c></row>`))).toEqual({ limit: "cell_text", cell: "C1" });
    expect(scanSplit("worksheet", sheet(`<row r="1"><c r="C1"><v>1<!--${"x".repeat(16)}--></v></c></row>`))).toEqual({ limit: "cell_text", cell: "C1" });
    expect(scanSplit("worksheet", sheet(`<row r="1"><c r="C1"><v><![CDATA[aaaa<v>aaaa<v>aaaa<v>aaaa]]></v></c></row>`))).toEqual({ limit: "cell_text", cell: "C1" });
  });

  it("reads a `>` inside a quoted attribute as part of the tag", () => {
    expect(scanSplit("worksheet", sheet(`<row r="1"><c r="A1" x="a>${"b".repeat(30)}"><v>1</v></c></row>`), { ...small, tagBytes: 200 })).toBeNull();
  });
});

describe("a worksheet's rows, tags, nesting and columns", () => {
  it("refuses a row of too many elements or too much text, naming it", () => {
    const cells = (n: number) => Array.from({ length: n }, (_, i) => `<c r="A${i}"/>`).join("");
    expect(scanSplit("worksheet", sheet(`<row r="3">${cells(11)}</row>`))).toBeNull();
    expect(scanSplit("worksheet", sheet(`<row r="3">${cells(12)}</row>`))).toEqual({ limit: "row_elements", row: 3 });
    const values = Array.from({ length: 3 }, (_, i) => `<c r="A${i}"><v>${"9".repeat(15)}</v></c>`).join("");
    expect(scanSplit("worksheet", sheet(`<row r="4">${values}</row>`))).toEqual({ limit: "row_text", row: 4 });
  });

  it("refuses a sheet of too many cells, naming the row where reading stopped", () => {
    const rows = (n: number) => Array.from({ length: n }, (_, r) => `<row r="${r + 1}"><c r="A${r + 1}"><v>1</v></c><c r="B${r + 1}"><v>2</v></c></row>`).join("");
    const limits = { ...small, elements: Infinity };
    expect(scanSplit("worksheet", sheet(rows(10)), limits)).toBeNull();
    expect(scanSplit("worksheet", sheet(rows(11)), limits)).toEqual({ limit: "cells", row: 11 });
  });

  it("refuses a tag longer than the limit and nesting deeper than the limit (self-closing tags do not nest)", () => {
    expect(scanSplit("worksheet", sheet(`<row r="1"><c r="A1" s="${"1".repeat(60)}"/></row>`))).toEqual({ limit: "tag" });
    expect(scanSplit("worksheet", sheet(`<a><b><c><d><e/><e/></d></c></b></a>`))).toBeNull();
    expect(scanSplit("worksheet", sheet(`<a><b><c><d><e></e></d></c></b></a>`))).toEqual({ limit: "depth" });
  });

  it("refuses a column range past XFD or not written as a plain number", () => {
    const cols = (attrs: string) => `<worksheet><cols><col ${attrs}/></cols><sheetData/></worksheet>`;
    expect(scanSplit("worksheet", cols(`min="1" max="16384"`))).toBeNull();
    expect(scanSplit("worksheet", cols(`min="1" max="16385"`))).toEqual({ limit: "column_range" });
    expect(scanSplit("worksheet", cols(`min='1' max='2000000000'`))).toEqual({ limit: "column_range" });
    expect(scanSplit("worksheet", cols(`min="1" max="&#57;&#57;&#57;&#57;&#57;&#57;"`))).toEqual({ limit: "column_range" });
    expect(scanSplit("worksheet", cols(`width="9"`))).toBeNull();
  });
});

describe("shared strings and the workbook's other parts", () => {
  it("counts each shared string's text from its start, and every element", () => {
    const sst = (strings: string[]) => `<sst>${strings.map((s) => `<si><t>${s}</t></si>`).join("")}</sst>`;
    expect(scanSplit("sharedStrings", sst(["a".repeat(20), "b".repeat(20)]))).toBeNull();
    expect(scanSplit("sharedStrings", sst(["a".repeat(21)]))).toEqual({ limit: "cell_text", cell: null });
    // A value tag does not start a new string's text in the shared strings.
    expect(scanSplit("sharedStrings", `<sst><si><t>${"a".repeat(12)}</t><v/>${"a".repeat(12)}</si></sst>`)).toEqual({ limit: "cell_text", cell: null });
    expect(scanSplit("sharedStrings", sst(Array.from({ length: 24 }, () => "x")))).toBeNull();
    expect(scanSplit("sharedStrings", sst(Array.from({ length: 25 }, () => "x")))).toEqual({ limit: "elements" });
  });

  it("bounds the elements of the parts the reader keeps whole", () => {
    expect(scanSplit("other", `<styleSheet>${"<xf/>".repeat(49)}</styleSheet>`)).toBeNull();
    expect(scanSplit("other", `<styleSheet>${"<xf/>".repeat(50)}</styleSheet>`)).toEqual({ limit: "elements" });
  });

  it("passes every part of a real workbook with the real limits, split anywhere", async () => {
    const qbo = getManagedPlatform("qhyg")!;
    const bytes = await streamedXlsxBytes([headerFor(qbo), ...Array.from({ length: 50 }, (_, i) => rowFor(qbo, i))]);
    const zip = readZipDirectory(bytes)!;
    const names = zip.entries.map((e) => e.name).filter((n) => n.startsWith("xl/") && n.endsWith(".xml"));
    const checked = await checkParts(bytes, zip, names);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    for (const name of names) {
      const kind: XmlPartKind = name === "xl/sharedStrings.xml" ? "sharedStrings" : name.startsWith("xl/worksheets/") ? "worksheet" : "other";
      const entry = zip.entries.find((e) => e.name === name)!;
      const { inflateRawSync } = await import("node:zlib");
      const start = entry.localOffset + 30 + bytes.readUInt16LE(entry.localOffset + 26) + bytes.readUInt16LE(entry.localOffset + 28);
      const xml = inflateRawSync(bytes.subarray(start, start + entry.compressedSize)).toString("utf8");
      for (const size of [1, 3, 4096]) expect(scan(kind, xml, { limits: limitsFor(kind), size })).toBeNull();
    }
  });
});
