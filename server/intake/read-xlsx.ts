/**
 * XLSX rows from a token file's bytes, streamed with exceljs's WorkbookReader so reading can stop
 * at the row limit and a 100,000-row workbook never becomes 600,000 cell objects at once.
 *
 * The streaming reader takes a ZIP's entries in the order they are stored, and a worksheet stored
 * before the shared strings (as Excel stores them) is spooled to a temporary file first — which
 * would put token text on disk. So the reader is given the entries in the order it needs
 * (workbook, styles, shared strings, worksheets), found through the ZIP's central directory, and
 * only after each has been unzipped, counted and checked (workbook-parts.ts): nothing is written to
 * disk, parts Ferry does not read are never unzipped, and a part that would unzip to more than the
 * caps, or make the reader gather more than they allow, is refused before the reader starts.
 *
 * Cell values become text with care: shared and inline strings as they are, rich text joined,
 * dates (a date-formatted number; Excel stores no time zone, so it is read as UTC) as ISO 8601,
 * whole numbers in full digits, formula cells as their cached result.
 */
import type { CellRichTextValue, CellValue } from "exceljs";
import { MAX_COLUMNS } from "./limits";
import { BlankRowCounter, FileReadError, isBlankRow, type RowSink, type SheetRow } from "./sheet-rows";
import { checkedPartsZip, checkParts, SHARED_STRINGS_PART, type PartSource } from "./workbook-parts";
import type { ZipDirectory } from "./zip-directory";

const WORKSHEET_PART = /^xl\/worksheets\/sheet(\d+)\.xml$/;
const RELS_PART = "xl/_rels/workbook.xml.rels";
const LEADING_PARTS = [RELS_PART, "xl/workbook.xml", "xl/styles.xml", SHARED_STRINGS_PART];

/** Spreadsheets keep 15 significant digits; a whole number this large may already have lost some. */
const LOSSY_FROM = 1e15;

/** The column letters of a 1-based column number (1 → A, 27 → AA). */
export function columnLetters(column: number): string {
  let letters = "";
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
}

/** The part names in the order exceljs's streaming reader needs them (worksheets by number). */
function partOrder(zip: ZipDirectory): string[] {
  const names = new Set(zip.entries.map((e) => e.name));
  const sheets = zip.entries
    .map((e) => ({ name: e.name, n: Number(WORKSHEET_PART.exec(e.name)?.[1]) }))
    .filter((s) => Number.isFinite(s.n))
    .sort((a, b) => a.n - b.n)
    .map((s) => s.name);
  return [...LEADING_PARTS.filter((n) => names.has(n) || n === SHARED_STRINGS_PART), ...sheets];
}

function isoDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return "";
  return date.toISOString().replace(".000Z", "Z");
}

type CellText = { text: string; lossy: boolean };

/** A cell's value as the text a person sees in it (see the module note). */
export function cellText(value: CellValue): CellText {
  if (value === null || value === undefined) return { text: "", lossy: false };
  if (typeof value === "string") return { text: value, lossy: false };
  if (typeof value === "number") {
    const lossy = Number.isInteger(value) && Math.abs(value) >= LOSSY_FROM;
    return { text: Number.isInteger(value) && Number.isSafeInteger(value) ? value.toFixed(0) : String(value), lossy };
  }
  if (typeof value === "boolean") return { text: value ? "TRUE" : "FALSE", lossy: false };
  if (value instanceof Date) return { text: isoDate(value), lossy: false };
  if ("richText" in value) return { text: value.richText.map((r) => r.text).join(""), lossy: false };
  if ("error" in value) return { text: String(value.error), lossy: false };
  if ("formula" in value || "sharedFormula" in value) {
    const result: unknown = value.result;
    if (result === undefined || result === null || typeof result === "object" && !(result instanceof Date)) {
      return { text: "", lossy: false };
    }
    return cellText(result as CellValue);
  }
  if ("hyperlink" in value) {
    const text: unknown = value.text;
    if (typeof text === "string") return { text, lossy: false };
    return text && typeof text === "object" && "richText" in text ? cellText(text as CellRichTextValue) : { text: "", lossy: false };
  }
  return { text: "", lossy: false };
}

function unreadable(): FileReadError {
  return new FileReadError(
    "unreadable_file",
    "The workbook could not be read: it may be damaged, or saved by a program that writes XLSX in a way Ferry does not read. Open it in Excel, save it again as Excel Workbook (.xlsx) or CSV UTF-8, and upload that.",
  );
}

function nameOf(reader: object): string | undefined {
  const name: unknown = Reflect.get(reader, "name");
  return typeof name === "string" ? name : undefined;
}

function beyondColumns(cell: string): FileReadError {
  return new FileReadError(
    "unknown_column",
    `Cell ${cell} holds a value, beyond the first ${MAX_COLUMNS} columns that Ferry reads; a token file's columns are at the left. Clear the cells right of the template's columns and upload again.`,
    Number(/\d+$/.exec(cell)?.[0]),
    cell,
  );
}

/**
 * Hands each non-blank row of the workbook's first worksheet (in tab order) to `sink`, header
 * first, until it returns false. Throws FileReadError for a workbook that is damaged, that would
 * unzip to more than the caps or make the reader hold more than they allow (workbook-parts.ts),
 * with a value beyond MAX_COLUMNS, or with too many blank rows.
 */
export async function readXlsxRows(bytes: Buffer, zip: ZipDirectory, sink: RowSink): Promise<void> {
  const order = partOrder(zip);
  // Without the workbook's relationships the reader would also spool worksheets to disk.
  if (!order.includes(RELS_PART) || !order.some((n) => WORKSHEET_PART.test(n))) throw unreadable();
  const checked = await checkParts(bytes, zip, order);
  if (!checked.ok) throw checked.error;
  const byName = new Map(checked.parts.map((p) => [p.name, p]));
  // A workbook without shared strings (inline strings only) gets an empty shared-strings part,
  // since the streaming reader spools every worksheet to disk until it has seen one.
  const sources: PartSource[] = order.map((name) => byName.get(name) ?? { name, text: "<sst/>" });
  // Loaded on first use: exceljs is large, and a CSV upload never needs it.
  const { default: ExcelJS } = await import("exceljs");
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(checkedPartsZip(bytes, sources), {
    sharedStrings: "cache",
    // Styles tell a date from a number; hyperlinks and other entries are not needed.
    styles: "cache",
    hyperlinks: "ignore",
    worksheets: "emit",
    entries: "ignore",
  });
  const blanks = new BlankRowCounter();
  // An error of the caller's is the caller's; only the reader's own become "unreadable".
  let sinkFailure: { error: unknown } | undefined;
  const deliver = (row: SheetRow): boolean => {
    try {
      return sink(row);
    } catch (error) {
      sinkFailure = { error };
      throw error;
    }
  };
  try {
    for await (const sheet of reader) {
      const first = reader.model?.sheets?.[0]?.name;
      if (first !== undefined && nameOf(sheet) !== first) continue;
      for await (const row of sheet) {
        const cells: string[] = [];
        let lossyCells: number[] | undefined;
        row.eachCell({ includeEmpty: false }, (cell, column) => {
          // Every row is padded to its last value's column: a value at XFD would make 16,384 cells of every row.
          if (column > MAX_COLUMNS) throw beyondColumns(`${columnLetters(column)}${row.number}`);
          const { text, lossy } = cellText(cell.value);
          cells[column - 1] = text;
          if (lossy) (lossyCells ??= []).push(column - 1);
        });
        for (let i = 0; i < cells.length; i++) cells[i] ??= "";
        if (isBlankRow(cells)) {
          blanks.add(row.number);
          continue;
        }
        if (!deliver(lossyCells ? { line: row.number, cells, lossyCells } : { line: row.number, cells })) return;
      }
      return;
    }
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    if (sinkFailure) throw sinkFailure.error;
    throw unreadable();
  }
  throw unreadable();
}
