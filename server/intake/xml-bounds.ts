/**
 * Bounds on a workbook part's XML, checked on the bytes as they are inflated and before exceljs's
 * streaming reader sees them. That reader (through saxes) gathers a whole text node, a whole tag
 * and the stack of open elements before it hands any of them on, and it keeps some of what it
 * reads: every shared string, and in a worksheet the text after a cell's value starts, appended to
 * that value until the next cell value starts. So a part that is small when zipped can still make
 * it hold gigabytes — one cell of 400 MB, megabytes of text between cells, millions of nested
 * elements or of rich-text runs, or a column range (`<col max="2000000000">`) it expands into one
 * object per column. This scanner counts what the reader would gather, keeps nothing but a few
 * counters, and says which limit a part breaks.
 *
 * It is not an XML parser: it tells tags from text (comments, CDATA, processing instructions and
 * declarations count as text), follows quotes inside tags, and follows the few elements the reader
 * acts on in the same way the reader does (so a cell value's text is counted from where the reader
 * starts a new one, not from any tag). A part that is not well-formed but breaks no limit is left
 * to the reader to refuse. Written by hand: a SAX parser would itself gather the oversized text
 * this is meant to stop.
 */
import {
  MAX_CELL_BYTES,
  MAX_MODEL_PART_ELEMENTS,
  MAX_ROW_ELEMENTS,
  MAX_ROW_TEXT_BYTES,
  MAX_SHARED_STRING_ELEMENTS,
  MAX_SHEET_CELLS,
  MAX_TAG_BYTES,
  MAX_XML_DEPTH,
} from "./limits";

/** What the reader does with a part: streams a worksheet's rows, caches the shared strings, keeps the others whole. */
export type XmlPartKind = "worksheet" | "sharedStrings" | "other";

export type XmlLimits = {
  tagBytes: number;
  depth: number;
  /** Text gathered into one value: a worksheet cell's, or one shared string's text element's. */
  cellBytes: number;
  /** Elements in the whole part (the reader keeps one object or more per element). */
  elements: number;
  /** Worksheets: elements and text from one row's start to the next. */
  rowElements: number;
  rowTextBytes: number;
  /** Worksheets: the highest column a `<col>` range may reach. */
  columns: number;
  /** Worksheets: cells (the reader makes an object of each, and each costs time). */
  cells: number;
};

/** The limits for each kind of part, from limits.ts. */
export function limitsFor(kind: XmlPartKind): XmlLimits {
  const common = { tagBytes: MAX_TAG_BYTES, depth: MAX_XML_DEPTH, rowElements: MAX_ROW_ELEMENTS, rowTextBytes: MAX_ROW_TEXT_BYTES, columns: 16_384, cells: MAX_SHEET_CELLS };
  switch (kind) {
    case "worksheet":
      return { ...common, cellBytes: MAX_CELL_BYTES, elements: Infinity };
    case "sharedStrings":
      return { ...common, cellBytes: MAX_CELL_BYTES, elements: MAX_SHARED_STRING_ELEMENTS };
    case "other":
      // The part's own size cap bounds its text; its elements are what the reader keeps.
      return { ...common, cellBytes: Infinity, elements: MAX_MODEL_PART_ELEMENTS };
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** The first limit a part breaks, with where it was when the reader can say. */
export type XmlBreach =
  /** `cell`: the worksheet cell whose value was growing (e.g. "B7"), or null (a shared string, or text outside a cell). */
  | { limit: "cell_text"; cell: string | null }
  | { limit: "row_text"; row: number | null }
  | { limit: "row_elements"; row: number | null }
  | { limit: "cells"; row: number | null }
  | { limit: "elements" }
  | { limit: "tag" }
  | { limit: "depth" }
  /** A `<col>` range beyond the last column (or not a plain number). */
  | { limit: "column_range" };

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const DASH = 0x2d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

const Mode = {
  Text: 0,
  /** Just after `<`. */
  Open: 1,
  StartTag: 2,
  EndTag: 3,
  /** Just after `<!`. */
  Bang: 4,
  Comment: 5,
  CData: 6,
  Declaration: 7,
  Instruction: 8,
} as const;
type Mode = (typeof Mode)[keyof typeof Mode];

/** The elements the scanner follows. */
type Known = "sheetData" | "row" | "c" | "v" | "t" | "is" | "f" | "si" | "col";

/** Bytes of a start tag kept to read its attributes (`r` of a row or cell, `min`/`max` of a column). */
const HEAD_BYTES = 512;
/** Element names longer than this are none of those the scanner follows. */
const NAME_BYTES = 16;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/** Every value of attribute `name` in a start tag's text (a well-formed tag has it at most once). */
function attributes(tag: string, name: string): string[] {
  return [...tag.matchAll(new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "g"))].map((m) => m[1] ?? m[2] ?? "");
}

function attribute(tag: string, name: string): string | undefined {
  return attributes(tag, name)[0];
}

/** Scans one part's bytes, chunk by chunk (see the module note). */
export class XmlBounds {
  private readonly limits: XmlLimits;
  private readonly kind: XmlPartKind;
  private mode: Mode = Mode.Text;
  private tagBytes = 0;
  private quote = 0;
  private previous = 0;
  private readonly name = Buffer.alloc(NAME_BYTES);
  private nameLength = 0;
  private nameDone = false;
  private head = Buffer.alloc(HEAD_BYTES);
  private headLength = 0;
  /** How many dashes (in a comment) or brackets (in CDATA) came last: `-->` and `]]>` end them. */
  private run = 0;
  private declarationDepth = 0;

  private depth = 0;
  /** Start tags in the part so far. */
  elements = 0;
  /** Text since the reader last started a new value. */
  private text = 0;
  private rowElements = 0;
  private cells = 0;
  private rowText = 0;
  // The worksheet reader's own state, followed as it keeps it (see its `parse`).
  private inSheetData = false;
  private inRow = false;
  private inCell = false;
  private lastRow = Buffer.alloc(HEAD_BYTES);
  private lastRowLength = 0;
  private lastCell = Buffer.alloc(HEAD_BYTES);
  private lastCellLength = 0;

  constructor(kind: XmlPartKind, limits: XmlLimits = limitsFor(kind)) {
    this.kind = kind;
    this.limits = limits;
  }

  /** Scans the next bytes of the part; returns the first limit they break (then stop), or null. */
  write(chunk: Uint8Array): XmlBreach | null {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.mode === Mode.Text) {
        const lt = chunk.indexOf(LT, i);
        const breach = this.addText((lt < 0 ? n : lt) - i);
        if (breach) return breach;
        if (lt < 0) return null;
        this.mode = Mode.Open;
        this.tagBytes = 1;
        i = lt + 1;
        continue;
      }
      if (this.mode === Mode.StartTag || this.mode === Mode.EndTag) {
        const scanned = this.scanTag(chunk, i);
        if (typeof scanned !== "number") return scanned;
        i = scanned;
        continue;
      }
      const breach = this.step(chunk[i]!);
      if (breach) return breach;
      i += 1;
    }
    return null;
  }

  /**
   * Inside a tag: runs to its `>` (outside quotes) or the chunk's end, in one tight loop (most of a
   * worksheet's bytes are tags). Returns where scanning goes on, or the limit broken.
   */
  private scanTag(chunk: Uint8Array, from: number): number | XmlBreach | null {
    const start = this.mode === Mode.StartTag;
    const n = chunk.length;
    let quote = this.quote;
    let previous = this.previous;
    let i = from;
    let ended = false;
    // The name's bytes one at a time (it is short); then the attributes in a tight loop.
    while (!this.nameDone && i < n) {
      const b = chunk[i]!;
      if (b === GT || (start && (b === DQUOTE || b === SQUOTE))) {
        this.nameDone = true;
        break;
      }
      this.nameByte(b);
      previous = b;
      i += 1;
    }
    while (i < n) {
      const b = chunk[i]!;
      i += 1;
      if (quote !== 0) {
        if (b === quote) quote = 0;
      } else if (b === GT) {
        ended = true;
        break;
      } else if (start && (b === DQUOTE || b === SQUOTE)) {
        quote = b;
      }
      previous = b;
    }
    this.tagBytes += i - from;
    if (this.tagBytes > this.limits.tagBytes) return { limit: "tag" };
    if (start) {
      const head = this.head;
      let at = this.headLength;
      for (let k = from; k < i && at < HEAD_BYTES; k++) head[at++] = chunk[k]!;
      this.headLength = at;
    }
    this.quote = quote;
    this.previous = previous;
    if (!ended) return i;
    this.mode = Mode.Text;
    const breach = start ? this.startTag(previous === SLASH) : this.endTag();
    return breach ?? i;
  }

  private addText(bytes: number): XmlBreach | null {
    if (!bytes) return null;
    this.text += bytes;
    this.rowText += bytes;
    if (this.text > this.limits.cellBytes) {
      return { limit: "cell_text", cell: this.kind === "worksheet" && this.inCell ? this.cellReference() : null };
    }
    if (this.kind === "worksheet" && this.rowText > this.limits.rowTextBytes) return { limit: "row_text", row: this.rowNumber() };
    return null;
  }

  private step(b: number): XmlBreach | null {
    switch (this.mode) {
      case Mode.Open:
        this.tagBytes += 1;
        this.nameLength = 0;
        this.nameDone = false;
        this.previous = b;
        if (b === SLASH) {
          this.mode = Mode.EndTag;
        } else if (b === BANG) {
          this.mode = Mode.Bang;
          return this.addText(2);
        } else if (b === QUESTION) {
          this.mode = Mode.Instruction;
          this.previous = 0;
          return this.addText(2);
        } else {
          this.mode = Mode.StartTag;
          this.quote = 0;
          this.head[0] = LT;
          this.head[1] = b;
          this.headLength = 2;
          this.nameByte(b);
        }
        return null;
      case Mode.StartTag:
      case Mode.EndTag:
        // Scanned by scanTag.
        return null;
      case Mode.Bang:
        this.mode = b === DASH ? Mode.Comment : b === LBRACKET ? Mode.CData : Mode.Declaration;
        this.run = 0;
        this.declarationDepth = 0;
        return this.addText(1);
      case Mode.Comment:
        if (b === GT && this.run >= 2) this.mode = Mode.Text;
        this.run = b === DASH ? this.run + 1 : 0;
        return this.addText(1);
      case Mode.CData:
        if (b === GT && this.run >= 2) this.mode = Mode.Text;
        this.run = b === RBRACKET ? this.run + 1 : 0;
        return this.addText(1);
      case Mode.Declaration:
        // A document type's internal subset (`[ … ]`) holds `>` of its own.
        if (b === LBRACKET) this.declarationDepth += 1;
        else if (b === RBRACKET) this.declarationDepth = Math.max(0, this.declarationDepth - 1);
        else if (b === GT && this.declarationDepth === 0) this.mode = Mode.Text;
        return this.addText(1);
      case Mode.Instruction:
        if (b === GT && this.previous === QUESTION) this.mode = Mode.Text;
        this.previous = b;
        return this.addText(1);
      case Mode.Text:
        return null;
      default: {
        const never: never = this.mode;
        return never;
      }
    }
  }

  private nameByte(b: number): void {
    if (this.nameDone) return;
    if (isSpace(b) || b === SLASH) {
      this.nameDone = true;
      return;
    }
    if (this.nameLength < NAME_BYTES) this.name[this.nameLength] = b;
    this.nameLength += 1;
  }

  /** The element's name when it is one the scanner follows, else null (compared once, at the tag's end). */
  private known(): Known | null {
    const l = this.nameLength;
    const nm = this.name;
    if (l === 1) return nm[0] === 0x63 ? "c" : nm[0] === 0x76 ? "v" : nm[0] === 0x74 ? "t" : nm[0] === 0x66 ? "f" : null;
    if (l === 2) return nm[0] === 0x69 && nm[1] === 0x73 ? "is" : nm[0] === 0x73 && nm[1] === 0x69 ? "si" : null;
    if (l === 3) {
      if (nm[1] !== 0x6f) return null;
      return nm[0] === 0x72 && nm[2] === 0x77 ? "row" : nm[0] === 0x63 && nm[2] === 0x6c ? "col" : null;
    }
    return l === 9 && nm.toString("latin1", 0, 9) === "sheetData" ? "sheetData" : null;
  }

  private startTag(selfClosing: boolean): XmlBreach | null {
    this.elements += 1;
    if (this.elements > this.limits.elements) return { limit: "elements" };
    if (!selfClosing) {
      this.depth += 1;
      if (this.depth > this.limits.depth) return { limit: "depth" };
    }
    const name = this.known();
    if (this.kind === "worksheet") {
      const breach = this.worksheetStart(name);
      if (breach) return breach;
      // The reader sees `<x/>` as a start and an end.
      if (selfClosing) this.worksheetEnd(name);
    } else if (this.kind === "sharedStrings" && (name === "si" || name === "t")) {
      // The reader starts a new string's text here.
      this.text = 0;
    }
    return null;
  }

  private endTag(): XmlBreach | null {
    this.depth = Math.max(0, this.depth - 1);
    if (this.kind === "worksheet") this.worksheetEnd(this.known());
    return null;
  }

  private worksheetStart(name: Known | null): XmlBreach | null {
    if (name === "row" && this.inSheetData) {
      this.inRow = true;
      // The tag's bytes become the last row's; the next tag is kept in the buffer that held it.
      [this.lastRow, this.head] = [this.head, this.lastRow];
      this.lastRowLength = this.headLength;
      this.rowElements = 0;
      this.rowText = 0;
    }
    this.rowElements += 1;
    if (this.rowElements > this.limits.rowElements) return { limit: "row_elements", row: this.rowNumber() };
    switch (name) {
      case "sheetData":
        this.inSheetData = true;
        return null;
      case "c":
        if (this.inRow) {
          this.cells += 1;
          if (this.cells > this.limits.cells) return { limit: "cells", row: this.rowNumber() };
          this.inCell = true;
          [this.lastCell, this.head] = [this.head, this.lastCell];
          this.lastCellLength = this.headLength;
        }
        return null;
      case "v":
      case "t":
      case "is":
      case "f":
        // The reader starts a new value here; text before it went to the previous one.
        if (this.inCell) this.text = 0;
        return null;
      case "col":
        return this.columnRange();
      default:
        return null;
    }
  }

  private worksheetEnd(name: Known | null): void {
    if (name === "sheetData") this.inSheetData = false;
    else if (name === "row") this.inRow = false;
    else if (name === "c" && this.inRow) this.inCell = false;
  }

  /** A `<col>`'s range: the reader makes one object per column up to `max`, so both ends must be plain column numbers. */
  private columnRange(): XmlBreach | null {
    if (this.headLength >= HEAD_BYTES) return { limit: "column_range" };
    const tag = this.head.toString("latin1", 0, this.headLength);
    for (const value of [...attributes(tag, "min"), ...attributes(tag, "max")]) {
      if (!/^\d{1,5}$/.test(value) || Number(value) > this.limits.columns) return { limit: "column_range" };
    }
    return null;
  }

  private cellReference(): string | null {
    const r = attribute(this.lastCell.toString("latin1", 0, this.lastCellLength), "r");
    return r && /^[A-Z]{1,3}\d{1,7}$/.test(r) ? r : null;
  }

  private rowNumber(): number | null {
    if (!this.inRow) return null;
    const r = attribute(this.lastRow.toString("latin1", 0, this.lastRowLength), "r");
    return r && /^\d{1,7}$/.test(r) ? Number(r) : null;
  }
}
