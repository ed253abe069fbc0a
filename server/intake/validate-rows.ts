/**
 * Checks a token file's data rows one at a time, as they are read, against the platform: required
 * values, well-formed credentials (through the same `checkCredentials` the sandbox uses), company
 * names the service would alter, expired tokens, `records` hints, the old app's counts
 * (`count_<dataType>`), and duplicates across rows.
 *
 * Decisions:
 * - Duplicate company names are compared case-insensitively after the service's renaming (the
 *   names it would store), and are a warning: the service allows equal names, and the same company
 *   twice is caught by its tokens or account id, which are errors.
 * - A CSV row with more values than the header has columns has almost always lost its quotes
 *   around a value containing the separator, so every later value sits in the wrong column: such a
 *   row gets one problem (extra_values), and its values are masked in the preview, since a token may
 *   now stand in a column that is not secret.
 * - Every column has a length limit (COLUMN_LIMITS): a longer value is one problem on its row and
 *   is not checked further, and nothing of it beyond a short cut (or the mask of a secret) is
 *   shown back — in problems or the preview.
 * - Rows are kept for the caller only while the file has no error: a refused file returns none,
 *   so a file of a hundred thousand rows that fails early does not hold them all.
 */
import { maskSecret } from "@/server/security/secrets";
import {
  checkCredentials,
  companyNameOnService,
  COMPANY_NAME_FORBIDDEN,
  fileWhere,
  foldAccents,
  type CredentialField,
  type ManagedPlatform,
} from "@/server/platforms";
import { countColumn, type ColumnMap } from "./columns";
import { COLUMN_LIMITS, MAX_RECORDS_HINT, PREVIEW_ROWS } from "./limits";
import { cut, type ProblemList } from "./problems";
import { columnLetters } from "./read-xlsx";
import type { SheetRow } from "./sheet-rows";
import { neutraliseSpreadsheetCell } from "./spreadsheet-cell";

/** One company of an accepted token file. `credentials` holds raw secrets: encrypt before storing. */
export type TokenRow = {
  /** CSV: the physical line the row starts on. XLSX: the worksheet row number. */
  line: number;
  /** XLSX only: the cell of the company name, e.g. `A7`. */
  cell?: string;
  /** The company name exactly as in the file (the service may alter it: see the problems). */
  name: string;
  /** The name Ferry sends the service: the file's folded and stripped as the service keeps it, or a stand-in (companyNameOnService). */
  serviceName: string;
  externalRef: string | null;
  records: number | null;
  /** The old app's record count per data type (its `count_<dataType>` columns), or null when the row gives none. */
  oldCounts: Record<string, number> | null;
  /** The platform's credential fields that have a value, exactly as in the file. */
  credentials: Record<string, string>;
};

/** One row of the preview: every value neutralised for spreadsheets, every secret masked. */
export type PreviewRow = {
  line: number;
  cell?: string;
  values: Record<string, string>;
  /** The name the company gets on the service, when it is not the file's. */
  becomes?: string;
};

type Located = { line: number; cell?: string };

const SHOWN_CHARS = 60;

/** A value fit to quote in a problem: at most SHOWN_CHARS characters. */
function shown(value: string): string {
  return cut(value, SHOWN_CHARS);
}


const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });
const FORBIDDEN_ONE = new RegExp(COMPANY_NAME_FORBIDDEN.source);

/**
 * How the name rule changes `name`, in words (e.g. "it folds “é” into “e”, it removes “☕”"),
 * character by character as a reader sees them (a letter with its accents is one).
 */
function renamingDetail(name: string): string {
  const folded = new Map<string, string>();
  const removed = new Set<string>();
  for (const { segment } of graphemes.segment(name)) {
    const plain = foldAccents(segment);
    const kept = plain.replace(COMPANY_NAME_FORBIDDEN, "");
    if (plain === segment ? FORBIDDEN_ONE.test(segment) : !kept) removed.add(segment);
    else if (plain !== segment) folded.set(segment, kept);
  }
  const parts: string[] = [];
  if (folded.size) parts.push(`it folds ${[...folded].map(([from, to]) => `“${from}” into “${to}”`).join(", ")}`);
  if (removed.size) parts.push(`it removes ${[...removed].map((c) => `“${c}”`).join(", ")}`);
  const kept = foldAccents(name).replace(COMPANY_NAME_FORBIDDEN, "");
  if (/[^\S ]/.test(kept)) parts.push("it turns line breaks and tabs into spaces");
  if (/ {2}/.test(kept)) parts.push("it collapses repeated spaces");
  if (kept.trim() !== kept) parts.push("it trims spaces at the ends");
  return parts.join(", ") || "it changes the name";
}

/**
 * Accepted rows handed on while the file is read, `size` at a time (the last batch at the end),
 * each with the position of its first row; only while the file has no error so far. A caller that
 * stores the rows then holds each batch only as long as it takes to encrypt it.
 */
export type RowBatches = { size: number; take(rows: TokenRow[], offset: number): void };

/** Checks data rows one at a time against the header's columns, keeping rows, preview and problems. */
export class RowValidator {
  /**
   * The data rows read, in file order (returned to the caller only when the file is accepted); with
   * `batches`, those not handed on yet. Let go at the first error.
   */
  rows: TokenRow[] = [];
  readonly preview: PreviewRow[] = [];
  private readonly batches: RowBatches | undefined;
  /** Rows handed on so far (with `batches`). */
  private handed = 0;

  private readonly platform: ManagedPlatform;
  private readonly columns: ColumnMap;
  private readonly xlsx: boolean;
  private readonly now: number;
  private readonly problems: ProblemList;
  private readonly present: { field: CredentialField; position: number }[];
  private readonly names = new Map<string, number>();
  /** The columns checked for duplicates (secrets and identities), each with the line of every value seen. */
  private readonly unique: { field: CredentialField; position: number; seen: Map<string, number> }[];
  private readonly unnamedReported = new Set<number>();
  private readonly tokensExpire: boolean;
  /**
   * Where one user's grant covers every account they belong to (Zoho Books), the rows per refresh
   * token: several accounts on one token are one user's, not a company twice (sharedGrants).
   */
  private readonly grants: Map<string, { lines: number[]; identities: Set<string> }> | null;
  private readonly identityField: CredentialField | undefined;

  constructor(params: { platform: ManagedPlatform; columns: ColumnMap; fileKind: "csv" | "xlsx"; now: Date; problems: ProblemList; batches?: RowBatches }) {
    this.batches = params.batches;
    this.platform = params.platform;
    this.columns = params.columns;
    this.xlsx = params.fileKind === "xlsx";
    this.now = params.now.getTime();
    this.problems = params.problems;
    this.present = params.columns.credentials.flatMap((c) => (c.position === null ? [] : [{ field: c.field, position: c.position }]));
    this.tokensExpire = params.platform.accessTokenLifetimeSeconds !== null;
    this.grants = params.platform.refreshTokensPerUser ? new Map() : null;
    this.identityField = params.platform.credentialFields.find((f) => f.identity);
    this.unique = this.present.filter(({ field }) => field.secret || field.identity).map((c) => ({ ...c, seen: new Map<string, number>() }));
  }

  /** The columns shown in the preview, in file-template order. */
  previewColumns(): string[] {
    return [
      ...(this.columns.companyName === null ? [] : ["companyName"]),
      ...this.present.map((c) => c.field.name),
      ...(this.columns.externalRef === null ? [] : ["externalRef"]),
      ...(this.columns.records === null ? [] : ["records"]),
      ...this.columns.oldCounts.map((c) => countColumn(c.dataType)),
    ];
  }

  private at(line: number, position: number | null): Located {
    return this.xlsx && position !== null ? { line, cell: `${columnLetters(position + 1)}${line}` } : { line };
  }

  /** "line 7" in a CSV, "row 7" in a workbook. */
  private ref(line: number): string {
    return this.xlsx ? `row ${line}` : `line ${line}`;
  }

  private addPreview(row: SheetRow, shifted: boolean, becomes: string | null): void {
    if (this.preview.length >= PREVIEW_ROWS) return;
    const values: Record<string, string> = {};
    const put = (column: string, position: number | null, secret: boolean) => {
      if (position === null) return;
      const raw = row.cells[position] ?? "";
      // A preview cell shows at most a company name's length; anything longer is cut.
      values[column] = neutraliseSpreadsheetCell(raw && secret ? maskSecret(raw) : cut(raw, COLUMN_LIMITS.companyName));
    };
    put("companyName", this.columns.companyName, false);
    for (const { field, position } of this.present) put(field.name, position, shifted || field.secret);
    put("externalRef", this.columns.externalRef, shifted);
    put("records", this.columns.records, shifted);
    for (const c of this.columns.oldCounts) put(countColumn(c.dataType), c.position, shifted);
    this.preview.push({ ...this.at(row.line, this.columns.companyName), values, ...(becomes !== null && becomes !== row.cells[this.columns.companyName ?? -1] ? { becomes: neutraliseSpreadsheetCell(becomes) } : {}) });
  }

  /** Values in columns that have no header name (once per column), or beyond the header in a CSV. */
  private checkUnnamed(row: SheetRow): boolean {
    const width = this.columns.headers.length;
    let extra = 0;
    row.cells.forEach((cell, position) => {
      if (!cell.trim() || this.columns.roles[position] || this.columns.headers[position]) return;
      if (position >= width && !this.xlsx) {
        extra += 1;
        return;
      }
      if (this.unnamedReported.has(position)) return;
      this.unnamedReported.add(position);
      const letter = this.xlsx ? `column ${columnLetters(position + 1)}` : `column ${position + 1}`;
      this.problems.add({
        kind: "unknown_column",
        ...this.at(row.line, position),
        column: letter,
        message: `${letter[0]!.toUpperCase()}${letter.slice(1)} has no header but holds values (first on ${this.ref(row.line)}). Give it a header or clear it.`,
      });
    });
    if (!extra) return false;
    const values = row.cells.length;
    this.problems.add({
      kind: "extra_values",
      line: row.line,
      message: `This row has ${values} values but the header has ${width} columns, so its values are in the wrong columns. A value that contains the separator (such as a company name with a comma) must be in double quotes.`,
    });
    return true;
  }

  /**
   * The name the company gets on the service (null when the row has none): a warning when it is
   * not the file's, and one when the same name is on an earlier row.
   */
  private checkName(line: number, name: string, externalRef: string): string | null {
    const at = this.at(line, this.columns.companyName);
    if (!name.trim()) {
      this.problems.add({ kind: "required_value_missing", ...at, column: "companyName", message: "companyName is empty; every row needs the company's name." });
      return null;
    }
    const onService = companyNameOnService({ name, externalRef: externalRef || null, where: fileWhere({ line, workbook: this.xlsx }) });
    const becomes = onService.name;
    if (onService.standIn) {
      this.problems.add({
        kind: "company_name_replaced",
        ...at,
        column: "companyName",
        value: shown(name),
        becomes,
        message: `The service keeps only letters A–Z, digits, spaces and - ' , & @ . ? ! in a name, and nothing of this one would be left: the company is named “${becomes}” on the service, and this name is kept in its description there.`,
      });
    } else if (becomes !== name) {
      this.problems.add({
        kind: "company_name_altered",
        ...at,
        column: "companyName",
        value: shown(name),
        becomes,
        message: `The service will store this name as “${becomes}”: ${renamingDetail(name)}. This name is kept in the company's description there.`,
      });
    }
    const key = becomes.toLowerCase();
    const first = this.names.get(key);
    if (first === undefined) {
      this.names.set(key, line);
      return becomes;
    }
    this.problems.add({
      kind: "duplicate_company_name",
      ...at,
      column: "companyName",
      value: shown(name),
      message: `The service would store the same name as on ${this.ref(first)} (“${becomes}”). It allows this, but check it is not the same company twice; externalRef can tell them apart.`,
    });
    return becomes;
  }

  private checkRecords(line: number, raw: string): number | null {
    const value = raw.trim();
    if (!value) return null;
    if (/^\d+$/.test(value) && Number(value) <= MAX_RECORDS_HINT) return Number(value);
    this.problems.add({
      kind: "invalid_records",
      ...this.at(line, this.columns.records),
      column: "records",
      value: shown(value),
      message: `records must be a whole number from 0 to ${MAX_RECORDS_HINT.toLocaleString("en")} (about how many records the company holds per data type), or empty.`,
    });
    return null;
  }

  /** The row's old counts: whole numbers of 0 or more; anything else is a problem on the row, in words. */
  private checkOldCounts(line: number, cell: (position: number | null) => string): Record<string, number> | null {
    const counts: Record<string, number> = {};
    for (const { dataType, position } of this.columns.oldCounts) {
      const value = cell(position).trim().replace(/,/g, "");
      if (!value) continue;
      if (/^\d+$/.test(value) && Number(value) <= MAX_RECORDS_HINT) {
        counts[dataType] = Number(value);
        continue;
      }
      const column = countColumn(dataType);
      const what = /^-/.test(value) ? "is negative" : /^-?\d*\.\d+$/.test(value) ? "is not a whole number" : "is not a number";
      this.problems.add({
        kind: "invalid_count",
        ...this.at(line, position),
        column,
        value: shown(cell(position).trim()),
        message: `${column} on ${this.ref(line)} ${what} (“${shown(cell(position).trim())}”): it must be the whole number of ${dataType} records the old app holds for this company (0 to ${MAX_RECORDS_HINT.toLocaleString("en")}), or empty.`,
      });
    }
    return Object.keys(counts).length ? counts : null;
  }

  private checkCredentialValues(line: number, input: Record<string, string>, over: ReadonlySet<number>): void {
    const check = checkCredentials(this.platform, input);
    if (check.ok) return;
    for (const problem of check.problems) {
      const slot = this.present.find((c) => c.field.name === problem.field);
      // A column the header lacks is reported once there, not on every row; a value over its
      // limit is reported as such, not again as missing.
      if (!slot || over.has(slot.position)) continue;
      const value = input[problem.field];
      const at = this.at(line, slot.position);
      if (value === undefined) {
        this.problems.add({ kind: "required_value_missing", ...at, column: problem.field, message: problem.message });
      } else {
        this.problems.add({
          kind: "malformed_value",
          ...at,
          column: problem.field,
          value: slot.field.secret ? maskSecret(value) : shown(value),
          message: problem.message,
        });
      }
    }
  }

  private checkExpiry(line: number, input: Record<string, string>, over: ReadonlySet<number>): void {
    const slot = this.present.find((c) => c.field.name === "expiresAt");
    if (!slot || !this.tokensExpire || over.has(slot.position)) return;
    const at = this.at(line, slot.position);
    const value = input.expiresAt;
    if (value === undefined) {
      this.problems.add({
        kind: "expires_at_missing",
        ...at,
        column: "expiresAt",
        message: `expiresAt is empty. ${this.platform.name} access tokens expire, and without the expiry the service cannot know when to refresh this one.`,
      });
      return;
    }
    const expires = Date.parse(value);
    if (this.platform.hasRefreshToken || Number.isNaN(expires) || expires > this.now) return;
    this.problems.add({
      kind: "access_token_expired",
      ...at,
      column: "expiresAt",
      value: shown(value),
      message: `This access token expired at ${shown(value)}, and ${this.platform.name} has no refresh token to renew it. Export a current token for this company.`,
    });
  }

  /**
   * One user's grant across several accounts (see `grants`): the row's tokens are counted with the
   * others on its refresh token; answers whether a shared token is that (not a company twice).
   */
  private sharesUserGrant(line: number, input: Record<string, string>): boolean {
    const token = input.refreshToken;
    const identity = this.identityField ? input[this.identityField.name] : undefined;
    if (!this.grants || token === undefined || identity === undefined) return false;
    const grant = this.grants.get(token);
    if (!grant) {
      this.grants.set(token, { lines: [line], identities: new Set([identity]) });
      return false;
    }
    if (grant.identities.has(identity)) return false;
    grant.lines.push(line);
    grant.identities.add(identity);
    return true;
  }

  private checkDuplicates(line: number, input: Record<string, string>): void {
    const sharedGrant = this.sharesUserGrant(line, input);
    for (const { field, position, seen } of this.unique) {
      const value = input[field.name];
      if (value === undefined) continue;
      const first = seen.get(value);
      if (first === undefined) {
        seen.set(value, line);
        continue;
      }
      const at = this.at(line, position);
      // The same user's tokens on another account of theirs: told once per user (sharedGrants), not refused.
      if (field.secret && sharedGrant) continue;
      if (field.secret) {
        this.problems.add({
          kind: "duplicate_credential",
          ...at,
          column: field.name,
          value: maskSecret(value),
          message: `The same ${field.name} is on ${this.ref(first)}. Each company has its own tokens: keep one row per company.`,
        });
      } else {
        this.problems.add({
          kind: "duplicate_identity",
          ...at,
          column: field.name,
          value: shown(value),
          message: `${field.name} ${shown(value)} is also on ${this.ref(first)}: the same ${this.platform.name} company twice. Keep one row per company.`,
        });
      }
    }
  }

  private checkLossy(row: SheetRow): void {
    for (const position of row.lossyCells ?? []) {
      const role = this.columns.roles[position];
      if (!role) continue;
      const secret = role.role === "credential" && role.field.secret;
      const raw = row.cells[position] ?? "";
      this.problems.add({
        kind: "lossy_number",
        ...this.at(row.line, position),
        column: role.role === "credential" ? role.field.name : role.role,
        value: secret ? maskSecret(raw) : shown(raw),
        message:
          "This cell holds a number of 16 or more digits. Spreadsheets keep only 15 significant digits, so it may already have been altered. Format the column as Text, enter the value again, and upload.",
      });
    }
  }

  /**
   * Values longer than their column's limit, each reported once on its row; returns the columns
   * (by position) whose values are not to be checked further.
   */
  private checkLengths(row: SheetRow): Set<number> {
    const over = new Set<number>();
    const check = (position: number | null, column: string, limit: number, secret: boolean) => {
      if (position === null) return;
      const value = row.cells[position] ?? "";
      if (value.length <= limit) return;
      over.add(position);
      this.problems.add({
        kind: "value_too_long",
        ...this.at(row.line, position),
        column,
        value: secret ? maskSecret(value) : shown(value),
        message: `${column} is ${value.length.toLocaleString("en")} characters long; it may have at most ${limit.toLocaleString("en")}. Check that the cell holds only the ${column} and nothing pasted after it.`,
      });
    };
    check(this.columns.companyName, "companyName", COLUMN_LIMITS.companyName, false);
    check(this.columns.externalRef, "externalRef", COLUMN_LIMITS.externalRef, false);
    check(this.columns.records, "records", COLUMN_LIMITS.records, false);
    for (const c of this.columns.oldCounts) check(c.position, countColumn(c.dataType), COLUMN_LIMITS.records, false);
    for (const { field, position } of this.present) check(position, field.name, COLUMN_LIMITS.credential, field.secret);
    return over;
  }

  /**
   * After the last row: each user whose one refresh token covers several companies of the file,
   * told once at its first line. The platform keeps a few refresh tokens per user for the app
   * (Zoho: 20) and the next authorization invalidates the oldest, likely this one, so reconnecting
   * these companies one at a time, or this user authorizing step 3's round trip, can stop the others.
   * Then, with `batches`, the last rows are handed on.
   */
  finish(): void {
    this.reportSharedGrants();
    // The last batch, while the file is still without an error.
    if (this.batches && this.rows.length && this.problems.errorCount === 0) this.handOn();
  }

  private reportSharedGrants(): void {
    const limit = this.platform.refreshTokensPerUser;
    if (!this.grants || !limit) return;
    for (const grant of this.grants.values()) {
      if (grant.lines.length < 2) continue;
      const [first, ...rest] = grant.lines as [number, ...number[]];
      const others = rest.slice(0, 8).map((l) => this.ref(l));
      const more = rest.length > 8 ? ` and ${rest.length - 8} more` : "";
      const many = grant.lines.length >= limit;
      const position = this.present.find((c) => c.field.name === "refreshToken")?.position ?? null;
      this.problems.add({
        kind: "shared_user_grant",
        ...this.at(first, position),
        column: "refreshToken",
        message:
          `${grant.lines.length} companies share this refresh token (also on ${others.join(", ")}${more}): one ${this.platform.name} user authorized them all. ` +
          `${this.platform.name} keeps ${limit} refresh tokens per user for your app, and each new authorization past that invalidates the user's oldest token, most likely this one. ` +
          (many
            ? `Reconnecting ${grant.lines.length} companies one at a time would certainly do that: if they must reconnect, have this user reconnect once, and never run step 3's round trip as this user.`
            : `If this user reconnects companies one at a time, or authorizes step 3's round trip, the companies on this token may stop working: run the round trip as another ${this.platform.name} user.`),
      });
    }
  }

  /** Checks one data row and keeps it (while the file has no error). */
  add(row: SheetRow): void {
    const shifted = this.checkUnnamed(row);
    const over = shifted ? new Set<number>() : this.checkLengths(row);
    const cell = (position: number | null) => (position === null || over.has(position) ? "" : (row.cells[position] ?? ""));
    const input: Record<string, string> = {};
    for (const { field, position } of this.present) {
      const value = cell(position);
      if (value !== "") input[field.name] = value;
    }
    const name = cell(this.columns.companyName);
    const externalRef = cell(this.columns.externalRef).trim();
    let records: number | null = null;
    let oldCounts: Record<string, number> | null = null;
    let serviceName: string | null = null;
    if (!shifted) {
      if (this.columns.companyName !== null && !over.has(this.columns.companyName)) serviceName = this.checkName(row.line, name, externalRef);
      records = this.checkRecords(row.line, cell(this.columns.records));
      oldCounts = this.checkOldCounts(row.line, cell);
      this.checkLossy(row);
      this.checkCredentialValues(row.line, input, over);
      this.checkExpiry(row.line, input, over);
      this.checkDuplicates(row.line, input);
    }
    this.addPreview(row, shifted, serviceName);
    if (this.problems.errorCount > 0) {
      // A refused file hands back no row: those kept so far are let go.
      if (this.rows.length) this.rows = [];
      return;
    }
    const kept: TokenRow = { line: row.line, name, serviceName: serviceName ?? name, externalRef: externalRef || null, records, oldCounts, credentials: input };
    if (this.xlsx && this.columns.companyName !== null) kept.cell = `${columnLetters(this.columns.companyName + 1)}${row.line}`;
    this.rows.push(kept);
    if (this.batches && this.rows.length >= this.batches.size) this.handOn();
  }

  /** Hands the rows kept so far to `batches` and lets them go. */
  private handOn(): void {
    const rows = this.rows;
    this.rows = [];
    this.batches!.take(rows, this.handed);
    this.handed += rows.length;
  }
}
