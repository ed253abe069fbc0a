/**
 * Token files made to hurt the server that reads them, built in code for the intake's tests and
 * for `npm run bench -- hostile`: workbooks whose ZIP headers lie about what they inflate to,
 * honest bombs, one cell of hundreds of megabytes, millions of tiny shared strings, XML that makes
 * a streaming reader gather or build too much, too many rows, and CSV with a cell of most of the
 * file. Each says what the intake must answer (the problem kind and words from its message).
 */
import { getManagedPlatform } from "@/server/platforms";
import { columnLetters } from "../intake/read-xlsx";
import { headerFor, inlineRow, repeated, rowFor, sheetXml, workbookParts, zipOf, type PartData, type ZipPart } from "./token-files";
import { credentialsFor } from "@/server/demo/stand-in-credentials";

const MB = 1024 * 1024;
const qbo = getManagedPlatform("qhyg")!;

export type HostileFile = {
  name: string;
  /** What it is, in a few words (the bench prints it). */
  description: string;
  fileName: string;
  build: () => Promise<Buffer>;
  /** The problem kind the check must answer with, and words of its message; `null` kind: the route refuses the upload itself. */
  expect: { kind: string | null; message: RegExp };
};

const header = headerFor(qbo);

/** A workbook around `sheet` (and shared strings), with per-part lies applied. */
function workbook(sheet: PartData, options: { sharedStrings?: PartData; lie?: Record<string, Omit<ZipPart, "name" | "data">> } = {}): Promise<Buffer> {
  return zipOf(workbookParts(sheet, options.sharedStrings).map((p) => ({ ...p, ...options.lie?.[p.name] })));
}

/** The header row, then row 2 whose B2 cell holds `bytes` of one letter (an inline string). */
function hugeCellSheet(bytes: number): PartData {
  return sheetXml(function* () {
    yield inlineRow(1, header);
    yield `<row r="2"><c r="A2" t="inlineStr"><is><t>Huge Cell Ltd</t></is></c><c r="B2" t="inlineStr"><is><t>`;
    yield* repeated("A", bytes);
    yield `</t></is></c></row>`;
  });
}

/** Shared strings of `count` copies of `text`. */
function sharedStrings(count: number, text: string): PartData {
  return function* () {
    yield `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${count}" uniqueCount="${count}">`;
    const one = `<si><t>${text}</t></si>`;
    yield* repeated(one, count * one.length);
    yield "</sst>";
  };
}

/** A worksheet whose cells point at the shared strings 0 and 1. */
const sharedSheet: PartData = sheetXml(function* () {
  yield `<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row>`;
});

/** Valid QuickBooks Online rows 2 … n+1 as inline strings. */
function validRows(count: number): () => Iterable<string> {
  return function* () {
    yield inlineRow(1, header);
    let batch: string[] = [];
    for (let i = 0; i < count; i++) {
      batch.push(inlineRow(i + 2, rowFor(qbo, i)));
      if (batch.length === 1000) {
        yield batch.join("");
        batch = [];
      }
    }
    yield batch.join("");
  };
}

/** The hostile workbooks (see the module note). Sizes are the inflated ones. */
export const HOSTILE_WORKBOOKS: readonly HostileFile[] = [
  {
    name: "lying-sheet",
    description: "sheet declares 4 KB, inflates to 400 MB (one cell)",
    fileName: "lying-sheet.xlsx",
    build: () => workbook(hugeCellSheet(400 * MB), { lie: { "xl/worksheets/sheet1.xml": { declare: { central: 4096, local: 4096 } } } }),
    expect: { kind: "unreadable_file", message: /xl\/worksheets\/sheet1\.xml unzips to more than the 4,096 bytes its ZIP directory declares/ },
  },
  {
    name: "lying-shared-strings",
    description: "shared strings declare 4 KB, inflate to 1 GB",
    fileName: "lying-shared-strings.xlsx",
    build: () =>
      workbook(sharedSheet, {
        sharedStrings: sharedStrings(1024 * 1024, "S".repeat(1008)),
        lie: { "xl/sharedStrings.xml": { declare: { central: 4096, local: 4096 } } },
      }),
    expect: { kind: "unreadable_file", message: /its shared-strings part \(the text of its cells\) unzips to more than the 4,096 bytes its ZIP directory declares/ },
  },
  {
    name: "lying-descriptor",
    description: "sheet sizes in a data descriptor: directory and descriptor say 4 KB, 100 MB inflated",
    fileName: "lying-descriptor.xlsx",
    build: () =>
      workbook(hugeCellSheet(100 * MB), { lie: { "xl/worksheets/sheet1.xml": { dataDescriptor: true, declare: { central: 4096, descriptor: 4096 } } } }),
    expect: { kind: "unreadable_file", message: /unzips to more than the 4,096 bytes its ZIP directory declares/ },
  },
  {
    name: "lying-local-header",
    description: "directory honest (1,000 rows), local header says 4 KB",
    fileName: "lying-local-header.xlsx",
    build: () => workbook(sheetXml(validRows(1000)), { lie: { "xl/worksheets/sheet1.xml": { declare: { local: 4096 } } } }),
    expect: { kind: "unreadable_file", message: /unzips to [\d,]+ bytes, but its ZIP headers declare [\d,]+ and 4,096/ },
  },
  {
    name: "honest-sheet-bomb",
    description: "sheet declares and inflates to 400 MB",
    fileName: "honest-sheet-bomb.xlsx",
    build: () => workbook(hugeCellSheet(400 * MB)),
    expect: { kind: "file_too_large", message: /The workbook unzips to 400 MB, more than the 128 MB Ferry reads/ },
  },
  {
    name: "honest-shared-strings-bomb",
    description: "shared strings declare and inflate to 1 GB",
    fileName: "honest-shared-strings-bomb.xlsx",
    build: () => workbook(sharedSheet, { sharedStrings: sharedStrings(1024 * 1024, "S".repeat(1008)) }),
    expect: { kind: "file_too_large", message: /The workbook's shared-strings part \(the text of its cells\) unzips to 1024 MB, more than the 64 MB Ferry reads/ },
  },
  {
    name: "huge-cell",
    description: "one cell of 100 MB, sizes honest",
    fileName: "huge-cell.xlsx",
    build: () => workbook(hugeCellSheet(100 * MB)),
    expect: { kind: "value_too_long", message: /^Cell B2 holds more than 64 KB of text/ },
  },
  {
    name: "huge-shared-string",
    description: "one shared string of 60 MB, sizes honest",
    fileName: "huge-shared-string.xlsx",
    build: () => workbook(sharedSheet, { sharedStrings: () => [`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>companyName</t></si><si><t>`, ...repeated("A", 60 * MB), "</t></si></sst>"] }),
    expect: { kind: "value_too_long", message: /cells holds more than 64 KB of text \(found in its shared strings\)/ },
  },
  {
    name: "many-shared-strings",
    description: "3,000,000 one-letter shared strings (54 MB)",
    fileName: "many-shared-strings.xlsx",
    build: () => workbook(sharedSheet, { sharedStrings: sharedStrings(3_000_000, "a") }),
    expect: { kind: "file_too_large", message: /The workbook's shared-strings part \(the text of its cells\) holds more XML elements than Ferry reads/ },
  },
  {
    name: "text-between-cells",
    description: "100 MB of spaces after the last cell, which the reader appends to that cell",
    fileName: "text-between-cells.xlsx",
    build: () => workbook(sheetXml(() => [inlineRow(1, header), inlineRow(2, rowFor(qbo, 1)), ...repeated(" ", 100 * MB)])),
    expect: { kind: "unreadable_file", message: /more than 64 KB of text outside its cells/ },
  },
  {
    name: "deep-nesting",
    description: "10,000,000 nested elements (30 MB)",
    fileName: "deep-nesting.xlsx",
    build: () => workbook(sheetXml(() => [inlineRow(1, header), ...repeated("<x>", 30 * MB)])),
    expect: { kind: "unreadable_file", message: /nests XML elements more than 64 deep/ },
  },
  {
    name: "column-range",
    description: "a column setting for columns 1 to 2,000,000,000",
    fileName: "column-range.xlsx",
    build: () => workbook(sheetXml(() => [inlineRow(1, header), inlineRow(2, rowFor(qbo, 1))], { before: `<cols><col min="1" max="2000000000" width="10"/></cols>` })),
    expect: { kind: "unreadable_file", message: /sets columns beyond XFD/ },
  },
  {
    name: "far-column",
    description: "100,000 rows with a value in column XFD",
    fileName: "far-column.xlsx",
    build: () =>
      workbook(
        sheetXml(function* () {
          yield inlineRow(1, header);
          for (let i = 2; i < 100_002; i++) yield `<row r="${i}"><c r="A${i}" t="inlineStr"><is><t>C${i}</t></is></c><c r="XFD${i}"><v>1</v></c></row>`;
        }),
      ),
    expect: { kind: "unknown_column", message: /^Cell XFD2 holds a value, beyond the first 256 columns/ },
  },
  {
    name: "many-cells",
    description: "100,000 rows of 30 cells (3,000,000 cells)",
    fileName: "many-cells.xlsx",
    build: () =>
      workbook(
        sheetXml(function* () {
          yield inlineRow(1, header);
          const columns = Array.from({ length: 30 }, (_, i) => columnLetters(i + 1));
          for (let r = 2; r < 100_002; r++) yield `<row r="${r}">${columns.map((c) => `<c r="${c}${r}"><v>1</v></c>`).join("")}</row>`;
        }),
      ),
    expect: { kind: "file_too_large", message: /^The sheet holds more than 2,500,000 cells \(reading stopped on row 83335\)/ },
  },
  {
    name: "150k-rows",
    description: "150,000 valid companies",
    fileName: "150k-rows.xlsx",
    build: () => workbook(sheetXml(validRows(150_000))),
    expect: { kind: "too_many_rows", message: /more than 100,000 companies/ },
  },
];

/** A QuickBooks Online CSV whose second row's access token is `bytes` long (most of the file). */
function hugeCsvCell(bytes: number): Buffer {
  const row = rowFor(qbo, 1);
  row[1] = "A".repeat(bytes);
  return Buffer.from(`${header.join(",")}\r\n${row.join(",")}\r\n`);
}

/** The hostile CSV files. */
export const HOSTILE_CSVS: readonly HostileFile[] = [
  {
    name: "csv-huge-cell",
    description: "a cell of 19 MB",
    fileName: "huge-cell.csv",
    build: async () => hugeCsvCell(19 * MB),
    expect: { kind: "value_too_long", message: /^Line 2 holds more than 64 KB/ },
  },
  {
    name: "csv-150k-rows",
    description: "150,000 short rows",
    fileName: "150k-rows.csv",
    build: async () => Buffer.from(["companyName,accessToken", ...Array.from({ length: 150_000 }, (_, i) => `C${i},${credentialsFor(qbo, i).accessToken}`)].join("\n")),
    expect: { kind: "too_many_rows", message: /more than 100,000 companies/ },
  },
  {
    name: "25mb",
    description: "a 25 MB file (the limit is 20 MB)",
    fileName: "25mb.csv",
    build: async () => Buffer.concat([Buffer.from(`${header.join(",")}\r\n`), Buffer.alloc(25 * MB, "a")]),
    expect: { kind: null, message: /larger than 20 MB/ },
  },
];

/** Every hostile file, workbooks first. */
export const HOSTILE_FILES: readonly HostileFile[] = [...HOSTILE_WORKBOOKS, ...HOSTILE_CSVS];

/** Rows in the largest valid workbook within the caps (see `largestAcceptedWorkbook`). */
export const LARGEST_ACCEPTED_ROWS = 14_000;

/**
 * Not hostile, but the most a valid workbook can make the reader keep: companies whose access and
 * refresh tokens are each 4,096 characters (the longest a token may be), as inline strings, about
 * 120 MB unzipped — near the 128 MB cap. Accepted; the bench reports its peak beside the others.
 */
export function largestAcceptedWorkbook(): Promise<Buffer> {
  return workbook(
    sheetXml(function* () {
      yield inlineRow(1, header);
      for (let i = 0; i < LARGEST_ACCEPTED_ROWS; i++) {
        const row = rowFor(qbo, i);
        const tag = `${i}`.padStart(8, "0");
        row[1] = `qhyg.at.${tag}.`.padEnd(4096, "a");
        row[2] = `qhyg.rt.${tag}.`.padEnd(4096, "r");
        yield inlineRow(i + 2, row);
      }
    }),
  );
}
