/**
 * Validation per platform (all six) and per problem kind, in CSV and XLSX: each case breaks one
 * thing in an otherwise valid file and expects exactly that problem, on that line (and cell), with
 * its severity. Then the cross-cutting promises: warnings do not block, names the service keeps
 * survive unchanged, and no raw secret appears outside `rows[].credentials`.
 */
import { describe, expect, it } from "vitest";
import { getManagedPlatform, MANAGED_PLATFORMS, type CredentialField, type ManagedPlatform } from "@/server/platforms";
import { checkHeader } from "./columns";
import { MAX_PROBLEMS_PER_KIND } from "./limits";
import { parseTokenFile } from "./parse-token-file";
import { formatProblem, ProblemList } from "./problems";
import { type IntakeProblem } from "@/core/intake/problems";
import { columnLetters } from "./read-xlsx";
import { csvBytes, headerFor, rowFor, secretsIn, xlsxBytes } from "../testing/token-files";
import { RowValidator } from "./validate-rows";

const now = new Date("2026-11-22T12:00:00Z");
type Format = "csv" | "xlsx";

async function parseRows(platform: ManagedPlatform, rows: string[][], format: Format) {
  const bytes = format === "csv" ? csvBytes(rows) : await xlsxBytes(rows);
  return parseTokenFile({ bytes, fileName: `tokens.${format}`, platformKey: platform.key, now });
}

function baseRows(platform: ManagedPlatform): string[][] {
  return [headerFor(platform), rowFor(platform, 1), rowFor(platform, 2), rowFor(platform, 3)];
}

function col(platform: ManagedPlatform, name: string): number {
  return headerFor(platform).indexOf(name);
}

function badValue(field: CredentialField): string {
  switch (field.format) {
    case "token":
      return "has a space inside";
    case "datetime":
      return "next Tuesday";
    case "pattern":
      return "not/valid value!";
    default: {
      const never: never = field.format;
      return never;
    }
  }
}

type Case = {
  name: string;
  formats?: readonly Format[];
  /** Breaks one thing; returns the problem expected (line and cell are derived from `at`). */
  apply: (rows: string[][], platform: ManagedPlatform) => { expected: Partial<IntakeProblem>; at: { line: number; column?: number } };
};

function casesFor(platform: ManagedPlatform): Case[] {
  const cases: Case[] = [
    {
      name: "empty company name",
      apply: (rows) => {
        rows[2]![0] = "";
        return { expected: { kind: "required_value_missing", severity: "error", column: "companyName" }, at: { line: 3, column: 0 } };
      },
    },
    {
      // A warning now, not a refusal: the company gets a stand-in name and keeps this one in its description.
      name: "company name the service empties",
      apply: (rows) => {
        rows[2]![0] = "((( ))) [] ~";
        return {
          expected: { kind: "company_name_replaced", severity: "warning", column: "companyName", value: "((( ))) [] ~", becomes: "Company REF-2" },
          at: { line: 3, column: 0 },
        };
      },
    },
    {
      name: "company name the service alters",
      apply: (rows) => {
        rows[3]![0] = "Company (Codat[1])";
        return {
          expected: {
            kind: "company_name_altered",
            severity: "warning",
            column: "companyName",
            value: "Company (Codat[1])",
            becomes: "Company Codat1",
            message: "The service will store this name as “Company Codat1”: it removes “(”, “[”, “]”, “)”. This name is kept in the company's description there.",
          },
          at: { line: 4, column: 0 },
        };
      },
    },
    {
      name: "duplicate company name (case and renaming ignored)",
      apply: (rows) => {
        rows[3]![0] = "COMPANY 1 LTD";
        return { expected: { kind: "duplicate_company_name", severity: "warning", column: "companyName", value: "COMPANY 1 LTD" }, at: { line: 4, column: 0 } };
      },
    },
    {
      name: "bad records hint",
      apply: (rows, p) => {
        rows[2]![col(p, "records")] = "-5";
        return { expected: { kind: "invalid_records", severity: "error", column: "records", value: "-5" }, at: { line: 3, column: col(p, "records") } };
      },
    },
    {
      name: "more values than columns",
      formats: ["csv"],
      apply: (rows) => {
        rows[2]!.push("stray");
        return { expected: { kind: "extra_values", severity: "error" }, at: { line: 3 } };
      },
    },
    {
      name: "values in a column without a header",
      formats: ["xlsx"],
      apply: (rows, p) => {
        const position = headerFor(p).length + 1;
        rows[3]![position] = "stray";
        const letter = columnLetters(position + 1);
        return { expected: { kind: "unknown_column", severity: "error", column: `column ${letter}` }, at: { line: 4, column: position } };
      },
    },
    {
      name: "unknown column",
      apply: (rows) => {
        rows[0]!.push("notes");
        for (const row of rows.slice(1)) row.push("hello");
        return { expected: { kind: "unknown_column", severity: "error", column: "notes" }, at: { line: 1, column: rows[0]!.length - 1 } };
      },
    },
    {
      name: "repeated column (an alias of companyName)",
      apply: (rows) => {
        rows[0]!.push("Company Name");
        for (const row of rows.slice(1)) row.push("Other");
        return { expected: { kind: "duplicate_column", severity: "error", column: "companyName" }, at: { line: 1, column: rows[0]!.length - 1 } };
      },
    },
    {
      name: "company name over 200 characters",
      apply: (rows) => {
        rows[2]![0] = `Long ${"n".repeat(196)}`;
        return {
          expected: { kind: "value_too_long", severity: "error", column: "companyName", value: `Long ${"n".repeat(54)}…`, message: "companyName is 201 characters long; it may have at most 200. Check that the cell holds only the companyName and nothing pasted after it." },
          at: { line: 3, column: 0 },
        };
      },
    },
    {
      name: "externalRef over 200 characters",
      apply: (rows, p) => {
        rows[2]![col(p, "externalRef")] = "R".repeat(250);
        return { expected: { kind: "value_too_long", severity: "error", column: "externalRef", value: `${"R".repeat(59)}…` }, at: { line: 3, column: col(p, "externalRef") } };
      },
    },
    {
      name: "records over 20 characters",
      apply: (rows, p) => {
        rows[2]![col(p, "records")] = "1".repeat(21);
        return { expected: { kind: "value_too_long", severity: "error", column: "records", value: "1".repeat(21) }, at: { line: 3, column: col(p, "records") } };
      },
    },
    {
      name: "missing companyName column",
      apply: (rows) => {
        for (const row of rows) row.splice(0, 1);
        return { expected: { kind: "missing_column", severity: "error", column: "companyName" }, at: { line: 1 } };
      },
    },
  ];
  for (const field of platform.credentialFields) {
    if (field.required) {
      cases.push({
        name: `empty ${field.name}`,
        apply: (rows, p) => {
          rows[2]![col(p, field.name)] = "";
          return { expected: { kind: "required_value_missing", severity: "error", column: field.name }, at: { line: 3, column: col(p, field.name) } };
        },
      });
      cases.push({
        name: `missing ${field.name} column`,
        apply: (rows, p) => {
          const position = col(p, field.name);
          for (const row of rows) row.splice(position, 1);
          return { expected: { kind: "missing_column", severity: "error", column: field.name }, at: { line: 1 } };
        },
      });
    }
    cases.push({
      name: `${field.name} over 8 KB`,
      apply: (rows, p) => {
        const value = `${"x".repeat(8 * 1024)}tail`;
        rows[2]![col(p, field.name)] = value;
        return {
          expected: { kind: "value_too_long", severity: "error", column: field.name, value: field.secret ? "••••tail" : `${"x".repeat(59)}…`, message: `${field.name} is 8,196 characters long; it may have at most 8,192. Check that the cell holds only the ${field.name} and nothing pasted after it.` },
          at: { line: 3, column: col(p, field.name) },
        };
      },
    });
    cases.push({
      name: `malformed ${field.name}`,
      apply: (rows, p) => {
        const value = badValue(field);
        rows[3]![col(p, field.name)] = value;
        return {
          expected: { kind: "malformed_value", severity: "error", column: field.name, value: field.secret ? `••••${value.slice(-4)}` : value },
          at: { line: 4, column: col(p, field.name) },
        };
      },
    });
    if (field.secret && field.name === "refreshToken" && platform.refreshTokensPerUser) {
      // One user's grant covers every account they belong to (Zoho): another account on the same token is told, not refused.
      cases.push({
        name: `duplicate ${field.name} (one user's accounts)`,
        apply: (rows, p) => {
          const position = col(p, field.name);
          rows[3]![position] = rows[1]![position]!;
          return {
            expected: { kind: "shared_user_grant", severity: "warning", column: field.name },
            at: { line: 2, column: position },
          };
        },
      });
    } else if (field.secret) {
      cases.push({
        name: `duplicate ${field.name}`,
        apply: (rows, p) => {
          const position = col(p, field.name);
          rows[3]![position] = rows[1]![position]!;
          return {
            expected: { kind: "duplicate_credential", severity: "error", column: field.name, value: `••••${rows[1]![position]!.slice(-4)}`, message: `The same ${field.name} is on ${"LINE"} 2. Each company has its own tokens: keep one row per company.` },
            at: { line: 4, column: position },
          };
        },
      });
    }
    if (field.identity) {
      cases.push({
        name: `duplicate ${field.name}`,
        apply: (rows, p) => {
          const position = col(p, field.name);
          rows[2]![position] = rows[1]![position]!;
          return { expected: { kind: "duplicate_identity", severity: "error", column: field.name, value: rows[1]![position] }, at: { line: 3, column: position } };
        },
      });
    }
    if (field.name === "expiresAt") {
      cases.push({
        name: "empty expiresAt",
        apply: (rows, p) => {
          rows[2]![col(p, "expiresAt")] = "";
          return { expected: { kind: "expires_at_missing", severity: "warning", column: "expiresAt" }, at: { line: 3, column: col(p, "expiresAt") } };
        },
      });
      cases.push({
        name: "no expiresAt column",
        apply: (rows, p) => {
          const position = col(p, "expiresAt");
          for (const row of rows) row.splice(position, 1);
          return { expected: { kind: "expires_at_missing", severity: "warning", column: "expiresAt" }, at: { line: 1 } };
        },
      });
    }
  }
  return cases;
}

it("knows which field names the company (account) on each platform", () => {
  expect(Object.fromEntries(MANAGED_PLATFORMS.map((p) => [p.key, p.credentialFields.filter((f) => f.identity).map((f) => f.name)]))).toEqual({
    fbrh: [],
    vxvy: ["accountId"],
    qhyg: ["realmId"],
    fztf: ["shopDomain"],
    pbtz: ["businessId"],
    rwuv: ["organizationId"],
  });
});

describe.each(MANAGED_PLATFORMS.map((p) => [p.name, p] as const))("%s", (_name, platform) => {
  it.each(["csv", "xlsx"] as const)("accepts a valid %s file, masking every secret in the preview", async (format) => {
    const rows = baseRows(platform);
    const result = await parseRows(platform, rows, format);
    expect(result).toMatchObject({ ok: true, rowCount: 3, problems: [], errorCount: 0, warningCount: 0 });
    expect(result.rows).toHaveLength(3);
    expect(result.preview.columns).toEqual(headerFor(platform));
    for (const secret of secretsIn(platform, rows.slice(1))) {
      expect(JSON.stringify(result.preview)).not.toContain(secret);
      expect(JSON.stringify(result.rows)).toContain(secret);
    }
    for (const field of platform.credentialFields.filter((f) => f.secret)) {
      expect(result.preview.rows[0]!.values[field.name]).toBe(`••••${rows[1]![col(platform, field.name)]!.slice(-4)}`);
    }
  });

  for (const c of casesFor(platform)) {
    for (const format of c.formats ?? (["csv", "xlsx"] as const)) {
      it(`${c.name} (${format})`, async () => {
        const rows = baseRows(platform);
        const { expected, at } = c.apply(rows, platform);
        const result = await parseRows(platform, rows, format);
        const cell = format === "xlsx" && at.column !== undefined ? `${columnLetters(at.column + 1)}${at.line}` : undefined;
        const message = expected.message?.replace("LINE", format === "csv" ? "line" : "row");
        expect(result.problems).toEqual([{ ...expected, ...(message ? { message } : {}), line: at.line, ...(cell ? { cell } : {}), message: message ?? expect.any(String) }]);
        expect(result.countsByKind).toEqual({ [expected.kind!]: 1 });
        expect(result.ok).toBe(expected.severity === "warning");
        expect(result.rows).toHaveLength(expected.severity === "warning" ? 3 : 0);
      });
    }
  }
});

describe("expired access tokens", () => {
  // None of the six has expiring tokens without a refresh token; the rule is for such a platform.
  const shopify = getManagedPlatform("fztf")!;
  const expiring: ManagedPlatform = {
    ...shopify,
    credentialFields: [...shopify.credentialFields, getManagedPlatform("qhyg")!.credentialFields.find((f) => f.name === "expiresAt")!],
    accessTokenLifetimeSeconds: 86_400,
  };

  it("refuses an access token that has expired on a platform without refresh tokens", () => {
    const header = checkHeader(expiring, ["companyName", "shopDomain", "accessToken", "expiresAt"]);
    const problems = new ProblemList();
    const validator = new RowValidator({ platform: expiring, columns: header.columns, fileKind: "xlsx", now, problems });
    validator.add({ line: 2, cells: ["Old Shop", "old.myshopify.com", "shpat_0123456789ab", "2026-11-22T11:59:59Z"] });
    validator.add({ line: 3, cells: ["New Shop", "new.myshopify.com", "shpat_abcdef012345", "2026-11-22T12:00:01Z"] });
    expect(problems.items).toEqual([
      expect.objectContaining({ kind: "access_token_expired", severity: "error", line: 2, cell: "D2", column: "expiresAt", value: "2026-11-22T11:59:59Z" }),
    ]);
    expect(problems.items[0]!.message).toMatch(/has no refresh token to renew it/);
  });

  it("accepts expired access tokens where a refresh token renews them", async () => {
    const qbo = getManagedPlatform("qhyg")!;
    const rows = baseRows(qbo);
    rows[1]![col(qbo, "expiresAt")] = "2020-01-01T00:00:00Z";
    expect(await parseRows(qbo, rows, "csv")).toMatchObject({ ok: true, problems: [] });
  });
});

describe("company names", () => {
  const qbo = getManagedPlatform("qhyg")!;

  it.each(["csv", "xlsx"] as const)("keeps names the service allows exactly, and says exactly what it changes in the others (%s)", async (format) => {
    const rows = baseRows(qbo);
    rows[1]![0] = "O'Brien & Sons, Ltd. - Est. 1999? Yes!";
    rows[2]![0] = "Société Générale";
    rows[3]![0] = "  Müller\tGmbH  ";
    const result = await parseRows(qbo, rows, format);
    expect(result.ok).toBe(true);
    expect(result.rows.map((r) => r.name)).toEqual(["O'Brien & Sons, Ltd. - Est. 1999? Yes!", "Société Générale", "  Müller\tGmbH  "]);
    expect(result.rows.map((r) => r.serviceName)).toEqual(["O'Brien & Sons, Ltd. - Est. 1999? Yes!", "Societe Generale", "Muller GmbH"]);
    const kept = " This name is kept in the company's description there.";
    expect(result.problems.map((p) => [p.line, p.becomes, p.message])).toEqual([
      [3, "Societe Generale", `The service will store this name as “Societe Generale”: it folds “é” into “e”.${kept}`],
      [4, "Muller GmbH", `The service will store this name as “Muller GmbH”: it folds “ü” into “u”, it turns line breaks and tabs into spaces, it collapses repeated spaces, it trims spaces at the ends.${kept}`],
    ]);
    expect(result.preview.rows.map((r) => r.becomes)).toEqual([undefined, "Societe Generale", "Muller GmbH"]);
  });

  it.each(["csv", "xlsx"] as const)("folds letters, removes emoji, and names it where nothing is left — a warning each, never a refusal (%s)", async (format) => {
    const rows = baseRows(qbo);
    rows[1]![0] = "Straße Café ☕ Ørsted";
    rows[2]![0] = "株式会社テスト";
    rows[3]![0] = "🎉🎉";
    rows[3]![col(qbo, "externalRef")] = "";
    const result = await parseRows(qbo, rows, format);
    expect(result).toMatchObject({ ok: true, errorCount: 0, warningCount: 3 });
    const where = format === "csv" ? "line" : "row";
    expect(result.rows.map((r) => [r.name, r.serviceName])).toEqual([
      ["Straße Café ☕ Ørsted", "Strasse Cafe Orsted"],
      ["株式会社テスト", "Company REF-2"],
      ["🎉🎉", `Company ${where} 4`],
    ]);
    expect(result.problems.map((p) => [p.kind, p.severity, p.line, p.becomes])).toEqual([
      ["company_name_altered", "warning", 2, "Strasse Cafe Orsted"],
      ["company_name_replaced", "warning", 3, "Company REF-2"],
      ["company_name_replaced", "warning", 4, `Company ${where} 4`],
    ]);
    expect(result.problems[0]!.message).toBe(
      "The service will store this name as “Strasse Cafe Orsted”: it folds “ß” into “ss”, “é” into “e”, “Ø” into “O”, it removes “☕”, it collapses repeated spaces. This name is kept in the company's description there.",
    );
    expect(result.problems[1]!.message).toMatch(/nothing of this one would be left: the company is named “Company REF-2” on the service, and this name is kept in its description there/);
  });

  it("compares names for duplicates as the service keeps them", async () => {
    const rows = baseRows(qbo);
    rows[1]![0] = "Café Olé";
    rows[2]![0] = "CAFE OLE";
    const result = await parseRows(qbo, rows, "csv");
    expect(result.problems.map((p) => [p.kind, p.line])).toEqual([
      ["company_name_altered", 2],
      ["duplicate_company_name", 3],
    ]);
  });
});

describe("the result", () => {
  const qbo = getManagedPlatform("qhyg")!;

  it("counts every problem of a kind but lists at most MAX_PROBLEMS_PER_KIND", async () => {
    const rows = [headerFor(qbo)];
    for (let i = 0; i < 1_500; i++) {
      const row = rowFor(qbo, i);
      row[col(qbo, "expiresAt")] = "";
      rows.push(row);
    }
    const result = await parseRows(qbo, rows, "csv");
    expect(result).toMatchObject({ ok: true, rowCount: 1_500, warningCount: 1_500, errorCount: 0 });
    expect(result.countsByKind).toEqual({ expires_at_missing: 1_500 });
    expect(result.problems).toHaveLength(MAX_PROBLEMS_PER_KIND);
    expect(result.rows).toHaveLength(1_500);
  });

  it("cuts long values in the preview and the problems, and keeps no row of a refused file", async () => {
    for (const format of ["csv", "xlsx"] as const) {
      const rows = baseRows(qbo);
      const longName = `Long ${"n".repeat(4_995)}`;
      const longHeader = `notes ${"h".repeat(994)}`;
      rows[1]![0] = longName;
      rows[0]!.push(longHeader);
      const result = await parseRows(qbo, rows, format);
      expect(result.ok).toBe(false);
      expect(result.rows).toEqual([]);
      expect(result.preview.rows[0]!.values.companyName).toBe(`${longName.slice(0, 199)}…`);
      expect(result.problems.find((p) => p.kind === "unknown_column")!.column).toBe(`${longHeader.slice(0, 39)}…`);
      expect(result.problems.find((p) => p.kind === "value_too_long")).toMatchObject({ line: 2, value: `${longName.slice(0, 59)}…` });
      expect(JSON.stringify(result)).not.toContain(longName.slice(0, 300));
      expect(JSON.stringify(result)).not.toContain(longHeader.slice(0, 100));
    }
  });

  it("lists file problems first, then by line", async () => {
    const rows = baseRows(qbo);
    rows[3]![0] = "Zed (Z)";
    rows[1]![col(qbo, "realmId")] = "x";
    rows[0]!.push("notes");
    const result = await parseTokenFile({ bytes: csvBytes(rows), fileName: "tokens.xlsx", platformKey: "qhyg", now });
    expect(result.problems.map((p) => [p.kind, p.line])).toEqual([
      ["extension_mismatch", undefined],
      ["unknown_column", 1],
      ["malformed_value", 2],
      ["company_name_altered", 4],
    ]);
  });

  it.each(MANAGED_PLATFORMS.map((p) => [p.name, p] as const))("never shows a raw secret outside rows[].credentials (%s)", async (_name, platform) => {
    for (const format of ["csv", "xlsx"] as const) {
      const rows = [headerFor(platform)];
      for (let i = 1; i <= 30; i++) rows.push(rowFor(platform, i));
      const secretColumns = platform.credentialFields.filter((f) => f.secret).map((f) => col(platform, f.name));
      // Duplicated tokens, a malformed token and, in CSV, a row whose unquoted comma shifts a token
      // into a column that is not secret.
      for (const position of secretColumns) rows[5]![position] = rows[4]![position]!;
      // Where one user's token may cover several accounts (Zoho), the same account too: a company twice.
      const identity = platform.credentialFields.find((f) => f.identity);
      if (platform.refreshTokensPerUser && identity) rows[5]![col(platform, identity.name)] = rows[4]![col(platform, identity.name)]!;
      rows[6]![secretColumns[0]!] = `${rows[6]![secretColumns[0]!]} tail`;
      if (format === "csv") rows[7] = ["Shifted", ...rows[7]!];
      rows[8]![0] = "Renamed (Ltd)";
      const secrets = secretsIn(platform, rows.slice(1, 7)).concat(secretsIn(platform, rows.slice(8)));
      const result = await parseRows(platform, rows, format);
      expect(result.ok).toBe(false);
      expect(result.errorCount).toBeGreaterThanOrEqual(2);
      const shown = JSON.stringify({ problems: result.problems, preview: result.preview, counts: result.countsByKind });
      for (const secret of [...secrets, ...(format === "csv" ? rows[7]!.slice(1) : [])].filter((s) => s.length >= 8 && !/^\d+$|myshopify|^20\d\d-|^[A-Za-z0-9+/=]+$/.test(s))) {
        expect(shown).not.toContain(secret);
      }
      expect(JSON.stringify(result.rows)).toBe("[]");
    }
  });
});

describe("formatProblem", () => {
  it("puts the location and column before the message, for mail and logs", () => {
    expect(formatProblem({ kind: "malformed_value", severity: "error", line: 7, column: "realmId", message: "realmId is malformed." })).toBe(
      "Line 7, column realmId: realmId is malformed.",
    );
    expect(formatProblem({ kind: "malformed_value", severity: "error", line: 7, cell: "E7", column: "realmId", message: "m" })).toBe("Row 7 (cell E7), column realmId: m");
    expect(formatProblem({ kind: "file_empty", severity: "error", message: "The file is empty." })).toBe("The file is empty.");
  });
});

describe("Zoho Books: one user's refresh token across several organisations (20 refresh tokens per user)", () => {
  const zoho = getManagedPlatform("rwuv")!;
  /** `n` organisations of one Zoho user: their own organisation ids, the same grant's tokens. */
  function oneUsersRows(n: number): string[][] {
    const rows = [headerFor(zoho), ...Array.from({ length: n }, (_, i) => rowFor(zoho, i + 1))];
    for (const name of ["accessToken", "refreshToken"]) for (const row of rows.slice(2)) row[col(zoho, name)] = rows[1]![col(zoho, name)]!;
    return rows;
  }

  it("accepts the file and tells once, at the first line, which companies share the user's token and what a reconnection or round trip risks", async () => {
    const result = await parseRows(zoho, [...oneUsersRows(3), rowFor(zoho, 9)], "csv");
    expect(result.ok).toBe(true);
    expect(result.rows).toHaveLength(4);
    const shared = result.problems.filter((p) => p.kind === "shared_user_grant");
    expect(shared).toHaveLength(1);
    expect(shared[0]).toMatchObject({ severity: "warning", line: 2, column: "refreshToken" });
    expect(shared[0]!.message).toContain("3 companies share this refresh token (also on line 3, line 4)");
    expect(shared[0]!.message).toContain("Zoho Books keeps 20 refresh tokens per user for your app");
    expect(shared[0]!.message).toMatch(/authorizes step 3's round trip/);
    expect(result.problems.filter((p) => p.severity === "error")).toEqual([]);
  });

  it("with 20 or more companies on one user's token, says reconnecting them one at a time would certainly invalidate it", async () => {
    const result = await parseRows(zoho, oneUsersRows(21), "csv");
    const [shared] = result.problems.filter((p) => p.kind === "shared_user_grant");
    expect(shared!.message).toContain("21 companies share this refresh token");
    expect(shared!.message).toContain("and 12 more");
    expect(shared!.message).toContain("would certainly do that");
  });

  it("the same organisation twice on one token is still the same company twice: refused, nothing kept", async () => {
    const rows = oneUsersRows(2);
    rows[2]![col(zoho, "organizationId")] = rows[1]![col(zoho, "organizationId")]!;
    const result = await parseRows(zoho, rows, "csv");
    expect(result.ok).toBe(false);
    expect(result.rows).toHaveLength(0);
    expect(result.problems.map((p) => p.kind)).toEqual(expect.arrayContaining(["duplicate_identity", "duplicate_credential"]));
  });

  it("other platforms keep refusing a token on two rows", async () => {
    const qbo = getManagedPlatform("qhyg")!;
    const rows = [headerFor(qbo), rowFor(qbo, 1), rowFor(qbo, 2)];
    rows[2]![col(qbo, "refreshToken")] = rows[1]![col(qbo, "refreshToken")]!;
    const result = await parseRows(qbo, rows, "csv");
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.kind)).toContain("duplicate_credential");
  });
});
