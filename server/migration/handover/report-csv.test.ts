/** The handover report's CSV: content, formula neutralisation, chunked streaming, and the download's HTTP side. */
import { parse } from "csv-parse/sync";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { handoverCsvResponse } from "@/server/api/downloads";
import { callerAs, testConfig } from "@/server/testing/caller";
import { seedHandover, type CompanySpec } from "@/server/testing/handover-fixture";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";

const LINKS = { appUrl: "http://ferry.test", ring: TEST_KEY_RING };
import { handoverReportCsv } from "./report-csv";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

async function produced(companies: CompanySpec[]) {
  const f = await seedHandover(t.database, p, { companies });
  await callerAs(t.database, p.support).handover.confirm({ engagementId: f.engagementId });
  return f;
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<{ text: string; chunks: number }> {
  let chunks = 0;
  const parts: Uint8Array[] = [];
  for await (const part of body) {
    chunks += 1;
    parts.push(part);
  }
  return { text: Buffer.concat(parts).toString("utf8"), chunks };
}

/** The CSV's records, split into the reconciliation above the table and the table (header first). */
function csvParts(text: string, options: { relax_quotes?: boolean } = {}): { top: string[][]; table: string[][] } {
  const records: string[][] = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false, ...options });
  const header = records.findIndex((r) => r[0] === "Company name");
  return { top: records.slice(0, header), table: records.slice(header) };
}

const HEADER = [
  "Company name",
  "Name on the service",
  "External reference",
  "Row in token file",
  "Final state",
  "Company ID",
  "Connection ID",
  "Connection status",
  "Checks",
  "Data types",
  "Data completeness",
  "Completeness details",
  "Reason",
  "What you need to do",
  "Reconnect link",
  "Error status",
  "Error",
  "Correlation ID",
  "Attempts in all",
  "Failed attempts in a row",
];

describe("the handover report as CSV", () => {
  it("maps every company to its ids and final state, with why and what to do for the rest", async () => {
    const f = await produced([
      { state: "verified", name: "Café Ünïcode, Ltd", externalRef: "EXT-1" },
      { state: "reauth_required", name: "Rotated Co" },
      { state: "verified", name: "株式会社テスト", externalRef: "JP-7" },
      {
        state: "failed",
        name: "Limit Co",
        lastError: { kind: "company_limit", status: 402, error: "Company limit exceeded", correlationId: "corr-402-abc" },
      },
      { state: "set_aside", name: "Closed Co", outcomeReason: "Closed by the end customer" },
    ]);
    const { fileName, body } = await handoverReportCsv(t.database, LINKS, p.customerA, f.engagementId);
    expect(fileName).toBe(`${f.reference}-handover-report.csv`);
    const { text } = await readAll(body);
    expect(text.startsWith("\ufeff")).toBe(true);
    expect(text).toContain("\r\n");
    const { top, table: records } = csvParts(text);
    expect(records[0]).toEqual(HEADER);
    expect(records).toHaveLength(6);
    // The reconciliation at the top, one count a row, then an empty row before the table.
    expect(top).toEqual([
      ["Reconciliation", `${f.reference}: 5 companies supplied: 4 created on the service, 2 linked, 2 synced; 2 verified, 1 reauthorization required, 1 set aside, 1 failed`],
      ["Supplied", "5"],
      ["Created on the service", "4"],
      ["Linked", "2"],
      ["Synced", "2"],
      ["Verified", "2"],
      ["Reconnection pending", "0"],
      ["Reauthorization required", "1"],
      ["Set aside", "1"],
      ["Failed", "1"],
      ["Still on their way", "0"],
      ["Single-company test's company", ""],
      [""],
    ]);
    const byName = Object.fromEntries(records.slice(1).map((r) => [r[0], Object.fromEntries(HEADER.map((h, i) => [h, r[i]]))]));
    expect(byName["Café Ünïcode, Ltd"]).toMatchObject({
      "Name on the service": "Cafe Unicode, Ltd",
      "External reference": "EXT-1",
      "Row in token file": "line 2",
      "Final state": "Verified",
      "Company ID": expect.stringMatching(/^c0a1b2c3-/),
      "Connection ID": expect.stringMatching(/^d0e1f2a3-/),
      "Connection status": "Linked",
      Checks: "Linked; 2 of 3 data types complete, 1 not supported; 50 records",
      "Data types": "chartOfAccounts: Complete (50); directIncomes: NotSupported; invoices: Complete",
      "Data completeness": "Not compared",
      "Completeness details": "Not compared: the token file gives no old app counts for this company.",
      Reason: "",
      "What you need to do": "",
      "Attempts in all": "7",
      "Failed attempts in a row": "0",
    });
    expect(byName["Rotated Co"]).toMatchObject({ "Name on the service": "Rotated Co", "Final state": "Reauthorization required", "Connection status": "Deauthorized" });
    // A reauthorization row has its error status (the connection's, since the service answered 200),
    // and its reason in words beside the platform's own in the error: neither repeats the other.
    expect(byName["Rotated Co"]).toMatchObject({
      "Error status": "Deauthorized",
      Reason: "The platform refused the migrated tokens when the connection was authorized, so it needs authorizing again.",
      Error: expect.stringMatching(/^400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant/),
      "Correlation ID": expect.stringMatching(/^corr-/),
      "Attempts in all": "3",
      "Failed attempts in a row": "0",
    });
    for (const row of Object.values(byName) as Record<string, string>[]) {
      if (row.Reason && row.Error) {
        expect(row.Error).not.toContain(row.Reason);
        expect(row.Reason).not.toContain(row.Error);
      }
    }
    // A name the service could not keep at all: the company's stand-in beside the file's name.
    expect(byName["株式会社テスト"]).toMatchObject({ "Name on the service": "Company JP-7", "External reference": "JP-7" });
    expect(byName["Rotated Co"]!["What you need to do"]).toMatch(/^The platform says the tokens in your file were replaced \(already used: the old app refreshed them after the export\): check that syncing in your old app is off, then send the end customer the company's reconnect link/);
    expect(byName["Limit Co"]).toMatchObject({ "Error status": "402", Error: "Company limit exceeded", "Correlation ID": "corr-402-abc" });
    expect(byName["Limit Co"]!["What you need to do"]).toMatch(/^Upgrade the service account/);
    expect(byName["Closed Co"]).toMatchObject({ "Company ID": "", Reason: "Set aside by support: Closed by the end customer." });
  });

  it("says per company whether its data is complete: short data types with their counts, validation messages with theirs", async () => {
    const at = new Date().toISOString();
    const sync = { requestedAt: at, polls: 2, dataTypes: { chartOfAccounts: "Complete", invoices: "Complete", bills: "Complete" } };
    const flawed = { errors: [{ message: "A bill's lines summed should be the same as its total amount.", count: 3 }], warnings: [], errorCount: 3, warningCount: 0 };
    const f = await produced([
      { state: "verified", name: "Short Co", oldCounts: { invoices: 1_040 }, checks: { connection: { status: "Linked", at }, sync, read: { dataType: "chartOfAccounts", records: 40, at }, records: { invoices: 812, bills: 5 } } },
      { state: "verified", name: "Whole Co", oldCounts: { invoices: 812, bills: 5 }, checks: { connection: { status: "Linked", at }, sync, read: { dataType: "chartOfAccounts", records: 40, at }, records: { invoices: 812, bills: 5 } } },
      { state: "verified", name: "Flawed Co", oldCounts: { bills: 5 }, checks: { connection: { status: "Linked", at }, sync, read: { dataType: "chartOfAccounts", records: 40, at }, records: { invoices: 812, bills: 5 }, validation: { bills: flawed } } },
    ]);
    const { table } = csvParts((await readAll((await handoverReportCsv(t.database, LINKS, p.support, f.engagementId)).body)).text);
    const cells = (name: string) => {
      const row = table.find((r) => r[0] === name)!;
      return [row[HEADER.indexOf("Data completeness")], row[HEADER.indexOf("Completeness details")]];
    };
    expect(cells("Short Co")).toEqual(["Short", "Invoices: 812 of the old app's 1,040."]);
    expect(cells("Whole Co")).toEqual(["Complete", "Every count compared is the old app's or more (Bills and Invoices)."]);
    expect(cells("Flawed Co")).toEqual(["Validation issues", "Bills validation: error “A bill's lines summed should be the same as its total amount.” ×3."]);
  });

  it("neutralises every cell a spreadsheet would read as a formula", async () => {
    const dangerous = ['=HYPERLINK("http://evil.test","click")', "+SUM(A1:A9)", "-2+3", "@cmd", "\t=1+1", "\r=1+1"];
    const f = await produced([
      ...dangerous.map((name) => ({ state: "verified" as const, name, externalRef: name })),
      { state: "set_aside", name: "Reasoned Co", outcomeReason: "=cmd|' /C calc'!A0" },
      { state: "failed", name: "Erring Co", lastError: { kind: "bad_request", status: 400, error: "@SUM(1)", correlationId: "=corr" } },
    ]);
    const { top, table: records } = csvParts((await readAll((await handoverReportCsv(t.database, LINKS, p.support, f.engagementId)).body)).text, { relax_quotes: true });
    const cells = [...top, ...records.slice(1)].flat();
    // No cell starts a formula, and each dangerous value is still there, behind one quote mark.
    for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    // Each dangerous name is still there, behind one quote mark (the intake keeps names as given;
    // it trims external references, so theirs may have lost a leading tab or return).
    const names = records.slice(1).map((r) => r[0]);
    for (const name of dangerous) expect(names).toContain(`'${name}`);
    const reasoned = records.find((r) => r[0] === "Reasoned Co")!;
    expect(reasoned[HEADER.indexOf("Reason")]).toBe("Set aside by support: =cmd|' /C calc'!A0.");
    const erring = records.find((r) => r[0] === "Erring Co")!;
    expect([erring[HEADER.indexOf("Error")], erring[HEADER.indexOf("Correlation ID")]]).toEqual(["'@SUM(1)", "'=corr"]);
  });

  it("streams thousands of companies in chunks, each once and in file order", async () => {
    const f = await produced(Array.from({ length: 2345 }, (_, i) => ({ state: "verified" as const, name: `Company ${i}` })));
    const { text, chunks } = await readAll((await handoverReportCsv(t.database, LINKS, p.support, f.engagementId)).body);
    expect(chunks).toBe(3);
    const { table: records } = csvParts(text);
    expect(records).toHaveLength(2346);
    expect(records.slice(1).map((r) => r[0])).toEqual(Array.from({ length: 2345 }, (_, i) => `Company ${i}`));
    expect(records.filter((r) => r[0] === "Company name")).toHaveLength(1);
  });
});

describe("the CSV download", () => {
  it("answers the file with its name, as an attachment nobody caches", async () => {
    const f = await produced([{ state: "verified" }]);
    const res = await handoverCsvResponse({ database: t.database, config: testConfig(), actor: p.customerA }, f.engagementId);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="${f.reference}-handover-report.csv"; filename*=UTF-8''${f.reference}-handover-report.csv`,
    );
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const bytes = Buffer.from(await res.arrayBuffer());
    // A UTF-8 byte-order mark first, so spreadsheet programs read accented names right.
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString("utf8").split("\r\n");
    expect(lines[0]).toMatch(/^Reconciliation,/);
    expect(lines[lines.indexOf("") + 1]).toBe(HEADER.join(","));
  });

  it("refuses without a session, for another organisation (as for an unknown id), and before the report exists", async () => {
    const f = await seedHandover(t.database, p);
    expect((await handoverCsvResponse({ database: t.database, config: testConfig(), actor: null }, f.engagementId)).status).toBe(401);
    const early = await handoverCsvResponse({ database: t.database, config: testConfig(), actor: p.support }, f.engagementId);
    expect([early.status, await early.text()]).toEqual([409, "The handover report has not been produced yet."]);
    await callerAs(t.database, p.support).handover.confirm({ engagementId: f.engagementId });
    const unknown = await handoverCsvResponse({ database: t.database, config: testConfig(), actor: p.customerB }, "no-such-engagement");
    const other = await handoverCsvResponse({ database: t.database, config: testConfig(), actor: p.customerB }, f.engagementId);
    expect([other.status, await other.text()]).toEqual([unknown.status, await unknown.text()]);
    expect(other.status).toBe(404);
    expect((await handoverCsvResponse({ database: t.database, config: testConfig(), actor: p.customerB }, "x".repeat(65))).status).toBe(404);
    expect((await handoverCsvResponse({ database: t.database, config: testConfig(), actor: p.customerA }, f.engagementId)).status).toBe(200);
  });
});
