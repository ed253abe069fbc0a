/**
 * The one rule for the name the service keeps: accents folded, then what the service strips
 * removed; a stand-in when nothing is left. Every name the rule returns is one the service stores
 * unchanged (its own stripping is the identity on it).
 */
import { describe, expect, it } from "vitest";
import { companyDescription, companyNameOnService, fileWhere, fileWhereOfSourceRef, foldAccents, serviceCompanyName } from "./company-name";

const onService = (name: string, externalRef: string | null = "ACME-7", where = "line 7") => companyNameOnService({ name, externalRef, where });

describe("foldAccents", () => {
  it.each([
    ["Société Générale Café", "Societe Generale Cafe"],
    ["Zoë's Café & Bar", "Zoe's Cafe & Bar"],
    ["Müller GmbH", "Muller GmbH"],
    ["Łódź Żywiec Spółka", "Lodz Zywiec Spolka"],
    ["Straße Bäckerei", "Strasse Backerei"],
    ["Øresund Trading ApS", "Oresund Trading ApS"],
    ["Ærø Ålborg Œuvre", "AEro Alborg OEuvre"],
    ["Đorđević d.o.o.", "Dordevic d.o.o."],
    ["Þór Hlöðversson ehf", "Thor Hlodversson ehf"],
    ["Çağrı İnşaat", "Cagri Insaat"],
    ["Nguyễn Thị Minh Khai", "Nguyen Thi Minh Khai"],
    ["ﬁnance Ｌｔｄ", "finance Ltd"],
    ["McDonald’s – Est. 1999", "McDonald's - Est. 1999"],
  ])("%s → %s", (name, folded) => {
    expect(foldAccents(name)).toBe(folded);
  });

  it("leaves other scripts as they are (they are not guessed at)", () => {
    expect(foldAccents("株式会社テスト")).toBe("株式会社テスト".normalize("NFKD").replace(/\p{M}/gu, ""));
    expect(foldAccents("Москва")).toMatch(/^[^A-Za-z]+$/);
  });
});

describe("companyNameOnService", () => {
  it.each([
    ["Harbour Books Ltd", "Harbour Books Ltd"],
    ["O'Brien & Sons, Ltd. - Est. 1999? Yes!", "O'Brien & Sons, Ltd. - Est. 1999? Yes!"],
    ["Société Générale Café", "Societe Generale Cafe"],
    ["Company (Codat[1])", "Company Codat1"],
    ["  Müller\tGmbH  ", "Muller GmbH"],
    ["Café ☕ Olé 🎉", "Cafe Ole"],
    ["株式会社テスト Ltd", "Ltd"],
    ["Acme Москва", "Acme"],
  ])("keeps what it can of %j", (name, kept) => {
    expect(onService(name)).toEqual({ name: kept, standIn: false });
  });

  it("stands in with the externalRef when nothing of the name is left: another script, emoji, signs only", () => {
    for (const name of ["株式会社テスト", "Москва", "🎉🎉", "((( ))) [] ~", "Ελληνική"]) {
      expect(onService(name, "JP-001")).toEqual({ name: "Company JP-001", standIn: true });
    }
  });

  it("folds and strips the externalRef too, and falls back to the company's place in the file", () => {
    expect(onService("株式会社", "Réf #42")).toEqual({ name: "Company Ref 42", standIn: true });
    expect(onService("株式会社", "№ ✓")).toEqual({ name: "Company No", standIn: true });
    expect(onService("株式会社", "テスト")).toEqual({ name: "Company line 7", standIn: true });
    expect(onService("株式会社", null, "row 12")).toEqual({ name: "Company row 12", standIn: true });
  });

  it("returns names the service stores unchanged", () => {
    for (const name of ["Société Générale Café", "Straße (Berlin) [1]", "株式会社", "  a\n\nb  ", "Ærø – ’Twas"]) {
      const kept = onService(name).name;
      expect(serviceCompanyName(kept)).toBe(kept);
      expect(kept).not.toBe("");
    }
  });
});

describe("where a company is, for its stand-in", () => {
  it("says line in a CSV and row in a workbook, also from a stored sourceRef", () => {
    expect(fileWhere({ line: 7, workbook: false })).toBe("line 7");
    expect(fileWhere({ line: 7, workbook: true })).toBe("row 7");
    expect(fileWhereOfSourceRef("line 7")).toBe("line 7");
    expect(fileWhereOfSourceRef("cell A12")).toBe("row 12");
  });
});

describe("companyDescription", () => {
  it("names the engagement, and the file's name only when the service's differs", () => {
    expect(companyDescription({ reference: "FER-1", fileName: "Harbour Books Ltd", serviceName: "Harbour Books Ltd" })).toBe("Migrated by Ferry (FER-1).");
    expect(companyDescription({ reference: "FER-1", fileName: "Société Générale Café", serviceName: "Societe Generale Cafe" })).toBe(
      "Migrated by Ferry (FER-1). Name in the token file: Société Générale Café",
    );
  });
});
