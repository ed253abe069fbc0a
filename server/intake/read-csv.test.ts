/**
 * The two CSV readers agree: a file without quotes is read by d3-dsv (fast) and any other by
 * csv-parse, and both must give the same rows, on the same lines, for every quote-free file.
 */
import { describe, expect, it } from "vitest";
import { MAX_CELL_BYTES } from "./limits";
import { readCsvRows, readCsvRowsInChunks, readQuotedCsv, readQuoteFreeCsv, type CsvDelimiter } from "./read-csv";
import { FileReadError, type SheetRow } from "./sheet-rows";

type Read = typeof readQuotedCsv;

/** What a reader hands its sink (up to `stopAfter` rows), or the error it throws. */
function read(reader: Read, bytes: Buffer, delimiter: CsvDelimiter, stopAfter = Infinity): { rows: SheetRow[]; error?: { kind: string; line?: number } } {
  const rows: SheetRow[] = [];
  try {
    reader(bytes, delimiter, (row) => {
      rows.push(row);
      return rows.length < stopAfter;
    });
    return { rows };
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    return { rows, error: { kind: error.kind, ...(error.line ? { line: error.line } : {}) } };
  }
}

/** A small seeded generator, so a failure names a file that can be made again. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

const VALUE_PARTS = ["Acme", " ", "Ltd", "qhyg.at.", "Zürich", "東京", "☕", "x", "9130", "", "  ", "REF-7", "a=b"];
const LINE_ENDS = ["\r\n", "\n", "\r"];

/** A quote-free file: values, empty lines, rows of spaces or empty values, mixed line ends, a BOM or not. */
function quoteFreeFile(next: () => number, delimiter: CsvDelimiter): Buffer {
  const pick = <T,>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const lines: string[] = [];
  const count = 1 + Math.floor(next() * 12);
  for (let i = 0; i < count; i++) {
    const shape = next();
    if (shape < 0.12) lines.push("");
    else if (shape < 0.2) lines.push(delimiter.repeat(Math.floor(next() * 4)) + pick(["", " ", "  "]));
    else {
      const cells = Array.from({ length: 1 + Math.floor(next() * 6) }, () => Array.from({ length: Math.floor(next() * 3) }, () => pick(VALUE_PARTS)).join(""));
      lines.push(cells.join(delimiter));
    }
  }
  let text = "";
  for (const line of lines) text += line + pick(LINE_ENDS);
  if (next() < 0.4) text = text.replace(/(\r\n|\n|\r)$/, "");
  if (next() < 0.3) text = `\uFEFF${text}`;
  return Buffer.from(text, "utf8");
}

describe("reading a quote-free CSV", () => {
  it("gives the same rows on the same lines as csv-parse, for 600 generated files", () => {
    for (let seed = 1; seed <= 600; seed++) {
      const next = random(seed);
      const delimiter = ([",", ";", "\t"] as const)[seed % 3]!;
      const bytes = quoteFreeFile(next, delimiter);
      const stopAfter = seed % 5 === 0 ? 1 + (seed % 4) : Infinity;
      const fast = read(readQuoteFreeCsv, bytes, delimiter, stopAfter);
      const full = read(readQuotedCsv, bytes, delimiter, stopAfter);
      expect({ seed, ...fast }).toEqual({ seed, ...full });
      // Read a few characters at a time: chunks cut at line ends (a CRLF never split) give the same rows.
      const chunkChars = 1 + (seed % 9);
      const chunked = read((b, _d, sink) => {
        for (const _ of readCsvRowsInChunks(b, sink, chunkChars)!);
      }, bytes, delimiter, stopAfter);
      expect({ seed, chunkChars, ...chunked }).toEqual({ seed, chunkChars, ...full });
    }
  });

  it("numbers lines across CRLF, LF and CR, empty lines and a BOM", () => {
    const bytes = Buffer.from("\uFEFFname,token\r\n\r\nAcme,t1\n\rBeta,t2\r,,\nGamma,t3");
    expect(read(readQuoteFreeCsv, bytes, ",").rows).toEqual([
      { line: 1, cells: ["name", "token"] },
      { line: 3, cells: ["Acme", "t1"] },
      { line: 5, cells: ["Beta", "t2"] },
      { line: 7, cells: ["Gamma", "t3"] },
    ]);
  });

  it("refuses a record over the size limit on its line, as csv-parse does", () => {
    const bytes = Buffer.from(`name,token\nAcme,${"t".repeat(MAX_CELL_BYTES + 1)}\nBeta,t2\n`);
    const expected = { rows: [{ line: 1, cells: ["name", "token"] }], error: { kind: "value_too_long", line: 2 } };
    expect(read(readQuoteFreeCsv, bytes, ",")).toEqual(expected);
    expect(read(readQuotedCsv, bytes, ",")).toEqual(expected);
    // Counted in UTF-8 bytes: a value of fewer characters but more bytes than the limit is refused too.
    const wide = Buffer.from(`name\n${"東".repeat(Math.ceil(MAX_CELL_BYTES / 3) + 1)}\n`);
    expect(read(readQuoteFreeCsv, wide, ",").error).toEqual({ kind: "value_too_long", line: 2 });
  });

  it("yields between chunks, each ended at a line end, and stops yielding once the reader is told to stop", () => {
    const bytes = Buffer.from(["name,token", ...Array.from({ length: 30 }, (_, i) => `Company ${i},t${i}`)].join("\r\n"));
    const lines: number[][] = [[]];
    const chunks = readCsvRowsInChunks(bytes, (row) => lines.at(-1)!.push(row.line) > 0, 64)!;
    for (const _ of chunks) lines.push([]);
    expect(lines.length).toBeGreaterThan(4);
    expect(lines.flat()).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    let seen = 0;
    const stopped = [...readCsvRowsInChunks(bytes, () => ++seen < 3, 64)!];
    expect(seen).toBe(3);
    expect(stopped).toHaveLength(0);
  });

  it("takes csv-parse for a file with a quote anywhere, so quoting mistakes are still found", () => {
    const rows: SheetRow[] = [];
    const unclosed = Buffer.from('name,token\nAcme,t1\n"Beta,t2\nGamma,t3\n');
    expect(readCsvRowsInChunks(unclosed, () => true)).toBeNull();
    expect(() => readCsvRows(unclosed, (row) => rows.push(row) > 0)).toThrow(/quoted value that starts on line 3 is never closed/);
    expect(rows.map((r) => r.line)).toEqual([1, 2]);
  });
});
