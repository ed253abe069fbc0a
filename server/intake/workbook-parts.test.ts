/**
 * The workbook parts as checked before the reader sees them: honest ZIPs of every shape a writer
 * makes pass (deflated or stored, sizes in a data descriptor), and every way a ZIP can disagree with
 * itself is refused as damaged — sizes, checksum, names, compression method.
 */
import { describe, expect, it } from "vitest";
import { getManagedPlatform } from "@/server/platforms";
import { parseTokenFile } from "./parse-token-file";
import { headerFor, rowFor, sheetXml, inlineRow, workbookParts, zipOf, type ZipPart } from "../testing/token-files";
import { checkParts } from "./workbook-parts";
import { readZipDirectory } from "./zip-directory";

const qbo = getManagedPlatform("qhyg")!;
const now = new Date("2026-11-22T12:00:00Z");
const SHEET = "xl/worksheets/sheet1.xml";
const sheet = sheetXml(() => [inlineRow(1, headerFor(qbo)), inlineRow(2, rowFor(qbo, 1))]);

function parts(change: Partial<ZipPart> = {}, name = SHEET): ZipPart[] {
  return workbookParts(sheet).map((p) => (p.name === name ? { ...p, ...change } : p));
}

async function checked(bytes: Buffer) {
  const zip = readZipDirectory(bytes)!;
  return checkParts(bytes, zip, ["xl/_rels/workbook.xml.rels", "xl/workbook.xml", SHEET]);
}

async function parse(bytes: Buffer) {
  return parseTokenFile({ bytes, fileName: "tokens.xlsx", platformKey: "qhyg", now });
}

describe("honest workbooks pass", () => {
  it.each([
    { name: "deflated", change: {} },
    { name: "stored", change: { stored: true } },
    { name: "deflated with a data descriptor", change: { dataDescriptor: true } },
  ])("reads a $name sheet", async ({ change }) => {
    const bytes = await zipOf(parts(change));
    const result = await checked(bytes);
    expect(result.ok).toBe(true);
    expect(await parse(bytes)).toMatchObject({ ok: true, rowCount: 1 });
  });
});

describe("a ZIP that disagrees with itself is refused as damaged", () => {
  it.each([
    { name: "the directory declares more than it inflates to", change: { declare: { central: 100_000 } }, message: /declare 100,000/ },
    { name: "the local header declares another size", change: { declare: { local: 10 } }, message: /but its ZIP headers declare [\d,]+ and 10\. Open it in Excel/ },
    { name: "the data descriptor declares another size", change: { dataDescriptor: true, declare: { descriptor: 10 } }, message: /but its ZIP headers declare [\d,]+ and 10\. Open it in Excel/ },
  ])("when $name", async ({ change, message }) => {
    const bytes = await zipOf(parts(change));
    const result = await checked(bytes);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe("unreadable_file");
    expect(result.error.message).toMatch(/^The workbook cannot be read: its part xl\/worksheets\/sheet1\.xml unzips to [\d,]+ bytes/);
    expect(result.error.message).toMatch(message);
    const parsed = await parse(bytes);
    expect(parsed).toMatchObject({ ok: false, rows: [] });
    expect(parsed.problems.map((p) => p.kind)).toEqual(["unreadable_file"]);
  });

  it("when the content does not match its checksum", async () => {
    const bytes = await zipOf(parts({ stored: true }));
    const zip = readZipDirectory(bytes)!;
    const entry = zip.entries.find((e) => e.name === SHEET)!;
    // One byte of the stored sheet changed: same size, another checksum.
    const at = entry.localOffset + 30 + SHEET.length + 60;
    bytes[at] = bytes[at] === 0x20 ? 0x09 : 0x20;
    const result = await checked(bytes);
    expect(result).toMatchObject({ ok: false, error: { kind: "unreadable_file", message: expect.stringMatching(/does not match its checksum/) } });
  });

  it("when two entries bear the same name, or a local header another name than the directory", async () => {
    const twice = await zipOf([...parts(), { name: SHEET, data: "<worksheet/>" }]);
    expect(await checked(twice)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/its ZIP holds xl\/worksheets\/sheet1\.xml twice/) } });
    const renamed = await zipOf(parts());
    const zip = readZipDirectory(renamed)!;
    const entry = zip.entries.find((e) => e.name === SHEET)!;
    // The local header's copy of the name: "sheet1" becomes "sheet9".
    renamed[entry.localOffset + 30 + SHEET.indexOf("1")] = 0x39;
    expect(await checked(renamed)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/bears another name than its directory says/) } });
  });

  it("when a part is compressed with a method Excel does not use", async () => {
    const bytes = await zipOf(parts());
    const zip = readZipDirectory(bytes)!;
    const entry = zip.entries.find((e) => e.name === SHEET)!;
    // Method 12 (bzip2) in both headers.
    bytes.writeUInt16LE(12, entry.localOffset + 8);
    const central = bytes.indexOf(Buffer.from(SHEET), zip.directoryOffset) - 46;
    bytes.writeUInt16LE(12, central + 10);
    expect(await checked(bytes)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/compressed in a way Excel does not use/) } });
  });
});
