/**
 * The calendar invite with people's names as people type them — quotes, semicolons, colons,
 * commas, carets and line breaks — read back with RFC 5545's grammar: every name stays inside its
 * own quoted CN parameter (RFC 6868 encoding for a quote and a line break), no name adds a line
 * or an attendee, and the description escapes them as TEXT.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUserWithPassword } from "@/server/accounts/users";
import { testConfig } from "@/server/testing/caller";
import { changeOwner } from "@/server/engagements/change-owner";
import { createEngagement } from "@/server/engagements/create-engagement";
import { agreeWindow, completeIntake } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, TEST_PASSWORD, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { windowInvite } from "./window-invite";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

type ContentLine = { name: string; params: Record<string, string>; value: string };

// RFC 5545 §3.1: param-value = paramtext / quoted-string; no DQUOTE or control character inside
// a quoted string (a tab is allowed), nor ";:," DQUOTE in paramtext.
const PARAM = /;([A-Za-z0-9-]+)=("[^"\u0000-\u0008\u000a-\u001f\u007f]*"|[^";:,\u0000-\u0008\u000a-\u001f\u007f]*)/y;

/** Unfolds the invite and parses each content line strictly; throws on anything the grammar refuses. */
function parseIcs(text: string): ContentLine[] {
  expect(text.endsWith("\r\n")).toBe(true);
  const unfolded = text.replace(/\r\n[ \t]/g, "");
  return unfolded
    .slice(0, -2)
    .split("\r\n")
    .map((line) => {
      if (/[\r\n]/.test(line)) throw new Error(`A bare line break inside a content line: ${JSON.stringify(line)}`);
      const name = /^[A-Za-z0-9-]+/.exec(line)?.[0];
      if (!name) throw new Error(`Not a content line: ${JSON.stringify(line)}`);
      const params: Record<string, string> = {};
      let at = name.length;
      for (;;) {
        PARAM.lastIndex = at;
        const m = PARAM.exec(line);
        if (!m) break;
        params[m[1]!] = m[2]!;
        at = PARAM.lastIndex;
      }
      if (line[at] !== ":") throw new Error(`A parameter that breaks the grammar at ${at}: ${JSON.stringify(line)}`);
      return { name, params, value: line.slice(at + 1) };
    });
}

/** A quoted CN as the name it carries (RFC 6868). */
const decodeCn = (quoted: string) => quoted.slice(1, -1).replace(/\^(\^|n|')/g, (_, c: string) => (c === "n" ? "\n" : c === "'" ? '"' : "^"));
/** A TEXT value unescaped (RFC 5545 §3.3.11). */
const decodeText = (value: string) => value.replace(/\\([\\;,nN])/g, (_, c: string) => (c.toLowerCase() === "n" ? "\n" : c));

const OWNER = 'Sam "The Fixer"\nO\'Neil; Ops:\rNight^Shift';
/** The owner's name as the invite carries it: any line break is one \n. */
const OWNER_SHOWN = OWNER.replace(/\r/g, "\n");
const CONTACTS = [
  { name: 'Dana "DJ" Jones\r\nATTENDEE;CN=Mallory:mailto:mallory@attacker.test', email: "dana@org-a.test" },
  { name: "Lee, Ops: Nights\rWeekend", email: "lee@org-a.test" },
];

describe("the calendar invite of a window", () => {
  it("keeps each name with a quote or a line break inside its own CN and TEXT values, as RFC 5545 and RFC 6868 write them", async () => {
    const engagementId = (await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id;
    const owner = await createUserWithPassword(t.database, { email: "fixer@test", name: OWNER, role: "support", organizationId: null, password: TEST_PASSWORD });
    await changeOwner(t.database, p.support, { engagementId, ownerId: owner.id });
    const flow = { db: t.database, config: testConfig(), support: p.support, customer: p.customerA };
    await completeIntake(flow, { engagementId, contacts: CONTACTS });
    const { windowId } = await agreeWindow(flow, { engagementId });

    const lines = parseIcs((await windowInvite(t.database, p.customerA, { engagementId, windowId, appUrl: "http://ferry.test" })).text);

    // One organiser, and one attendee per person: no name added a line of its own.
    const organizers = lines.filter((l) => l.name === "ORGANIZER");
    expect(organizers.map((o) => ({ cn: decodeCn(o.params.CN!), value: o.value.toLowerCase() }))).toEqual([{ cn: OWNER_SHOWN, value: "mailto:fixer@test" }]);
    const attendees = lines.filter((l) => l.name === "ATTENDEE").map((a) => ({ cn: decodeCn(a.params.CN!), value: a.value, role: a.params.ROLE }));
    expect(attendees).toEqual([
      { cn: "Customer A", value: "mailto:a@org-a.test", role: '"REQ-PARTICIPANT"' },
      { cn: 'Dana "DJ" Jones\nATTENDEE;CN=Mallory:mailto:mallory@attacker.test', value: "mailto:dana@org-a.test", role: '"REQ-PARTICIPANT"' },
      { cn: "Lee, Ops: Nights\nWeekend", value: "mailto:lee@org-a.test", role: '"REQ-PARTICIPANT"' },
    ]);
    expect(lines.filter((l) => l.value.includes("attacker.test") && l.name !== "ATTENDEE")).toEqual([]);
    expect(organizers[0]!.params.CN).toBe(`"Sam ^'The Fixer^'^nO'Neil; Ops:^nNight^^Shift"`);

    // The description names the support contact as typed, escaped as TEXT.
    const description = lines.filter((l) => l.name === "DESCRIPTION");
    expect(description).toHaveLength(1);
    expect(description[0]!.value).not.toMatch(/(^|[^\\])[;,]/);
    expect(decodeText(description[0]!.value)).toContain(`Support contact: ${OWNER_SHOWN} <fixer@test>.`);
  });
});
