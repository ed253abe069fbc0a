/**
 * The last mile across both roles on the e2e sandbox: a bulk run in which three tenants were
 * refreshed by the customer's old app after the export hands those companies to their end
 * customers; the customer is told on the first screen, downloads the reconnect links, and one end
 * customer connects through the sandbox's Link page; Ferry notices, syncs and verifies it. The
 * customer sends fresh tokens for another in a supplementary file, support accepts it, and the
 * bulk run verifies that one too. Support produces the report; the customer, told it is their move
 * at the top of the page, acknowledges it. During the hypercare watch a connection drops; the
 * service's webhook brings it to support's open page within a minute (no "Check now") and both
 * sides see it with its link. axe over the new states.
 */
import fs from "node:fs";
import { expectAccessible } from "./axe";
import { screenshots } from "./screenshots";
import { DEMO, e2eSandbox, expect, openActivity, openStep6Part, signIn, test, tokenCsv, type TrpcApi } from "./fixtures";

async function passStep5(api: TrpcApi, engagementId: string, itemId: string): Promise<void> {
  const { runId } = await api.mutation<{ runId: string }>("tests.start", { engagementId, kind: "pilot", itemId });
  await expect.poll(async () => (await api.query<{ status: string }>("tests.get", { engagementId, runId })).status, { timeout: 45_000 }).toBe("passed");
}

type Item = { id: string; name: string; state: string; companyId: string | null; connectionId: string | null };

async function items(api: TrpcApi, engagementId: string): Promise<Item[]> {
  return (await api.query<{ rows: Item[] }>("bulk.items", { engagementId, page: 1, pageSize: 50 })).rows;
}

test("companies that failed on their tokens go to their end customers with links; one reconnects and is verified; the customer acknowledges; a drop during the watch is reported", async ({ browser, factory, supportApi }) => {
  test.setTimeout(180_000);
  const sandbox = e2eSandbox();
  const org = await factory.organization("Last Mile Org");
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [
      { name: "Linden Books", records: 3, externalRef: "LM-1" },
      { name: "Maple Dental", records: 3, externalRef: "LM-2" },
      { name: "Nettle Nursery", records: 3, externalRef: "LM-3", rotatedAfterExport: true },
      { name: "Osier Optics", records: 3, externalRef: "LM-4", rotatedAfterExport: true },
      { name: "Pine Pottery", records: 3, externalRef: "LM-5", rotatedAfterExport: true },
    ],
  });
  // The account's Link URLs work once and expire after a day, as the service's can: Ferry hands out its own links.
  await sandbox.control.setClientSettings(eng.sandboxClientId, { oneTimeLinkUrls: true });
  const first = (await items(supportApi, eng.id)).find((i) => i.name === "Linden Books")!;
  await passStep5(supportApi, eng.id, first.id);
  await supportApi.mutation("bulk.start", { engagementId: eng.id, reason: "The customer asked to run before the agreed window." });
  await expect.poll(async () => (await supportApi.query<{ run: { status: string } | null }>("bulk.overview", { engagementId: eng.id })).run?.status, { timeout: 60_000 }).toBe("completed");

  // The customer's first screen: what is theirs to do, with the links to send on.
  const customerContext = await browser.newContext({ acceptDownloads: true });
  const portal = await customerContext.newPage();
  await signIn(portal, eng.customer);
  await portal.goto(`/portal/engagements/${eng.id}`);
  const nextMove = portal.getByRole("region", { name: /Your move|Also for you/ });
  await expect(nextMove).toContainText("3 companies were not migrated with the tokens given");
  await expect(nextMove).toBeInViewport();
  const download = portal.waitForEvent("download");
  await nextMove.getByRole("link", { name: "Download the reconnect links (CSV)" }).click();
  const csv = fs.readFileSync(await (await download).path(), "utf8");
  const after = await items(supportApi, eng.id);
  const nettle = after.find((i) => i.name === "Nettle Nursery")!;
  const osier = after.find((i) => i.name === "Osier Optics")!;
  expect(nettle.state).toBe("reconnect_pending");
  // Each company's link is Ferry's own (stable, one per company), never the service's one-time URL.
  const linkIn = (name: string, ref: string, companyId: string | null) => new RegExp(`${name},${ref},(https?://[^,/]+/reconnect/[A-Za-z0-9._-]+),${companyId},`).exec(csv)?.[1];
  const nettleLink = linkIn("Nettle Nursery", "LM-3", nettle.companyId);
  expect(nettleLink).toBeTruthy();
  expect(linkIn("Osier Optics", "LM-4", osier.companyId)).toBeTruthy();
  expect(csv).not.toContain(sandbox.url);
  expect(csv).not.toContain("Linden Books");

  // Step 6 opens where the customer's move is: the companies waiting for their end customers.
  const reconnections = portal.getByRole("region", { name: "Reconnections and hypercare" });
  await expect(portal.getByRole("navigation", { name: "Parts of step 6" }).getByRole("link", { name: /^Reconnections/ })).toHaveAttribute("aria-current", "page");
  await expect(reconnections.getByRole("table", { name: "Companies waiting for their end customers" })).toContainText("Nettle Nursery");
  await expect(reconnections.getByRole("button", { name: "Copy reconnect link of Nettle Nursery" })).toBeVisible();
  await expect(reconnections.getByRole("button", { name: "Check now" })).toHaveCount(0);
  await expectAccessible(portal, "the portal with companies waiting for their end customers");
  await screenshots(portal, null, "portal-last-mile-first-screen");
  await screenshots(portal, reconnections, "portal-reconnections");

  // Nettle's end customer opens Ferry's link on a phone: Ferry gets a fresh Link URL from the service
  // and sends the browser there, where they connect. (Their own browser: axe needs a page of a context.)
  const endCustomerContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const endCustomer = await endCustomerContext.newPage();
  await endCustomer.goto(nettleLink!);
  expect(endCustomer.url()).toMatch(new RegExp(`^${sandbox.url}/link/company/${nettle.companyId}\\?token=`));
  await expect(endCustomer.getByRole("heading", { level: 1 })).toContainText("Nettle Nursery");
  await expectAccessible(endCustomer, "the sandbox's Link page of a company, reached through Ferry's link on a phone");
  // The same page on a laptop (1366): nothing wider than the window, axe clean.
  await endCustomer.setViewportSize({ width: 1366, height: 900 });
  expect(await endCustomer.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await expectAccessible(endCustomer, "the sandbox's Link page of a company, reached through Ferry's link at 1366");
  await endCustomer.setViewportSize({ width: 390, height: 844 });
  const serviceUrl = endCustomer.url();
  await endCustomer.getByRole("button", { name: /Connect/ }).first().click();
  await expect(endCustomer.getByText(/Connected/).first()).toBeVisible();
  await expectAccessible(endCustomer, "the sandbox's Link page once connected");
  // The service's URL worked once; a link that was altered says only that it is not valid (at 1366).
  expect((await endCustomer.goto(serviceUrl))!.status()).toBe(410);
  await endCustomer.setViewportSize({ width: 1366, height: 900 });
  await endCustomer.goto(`${nettleLink!.slice(0, -3)}xyz`);
  await expect(endCustomer.getByRole("heading", { level: 1 })).toHaveText("This link is not valid");
  await expectAccessible(endCustomer, "an altered reconnect link");
  await screenshots(endCustomer, null, "reconnect-link-not-valid");
  await endCustomerContext.close();

  // Ferry notices, syncs and verifies it; the portal says so without a reload.
  await expect(reconnections).toContainText("1 company came back and was verified", { timeout: 60_000 });
  const nettleTimeline = await supportApi.query<{ entries: { text: string; actor: string | null }[] }>("bulk.timeline", { engagementId: eng.id, itemId: nettle.id });
  expect(nettleTimeline.entries.filter((e) => e.actor === "Its end customer (reconnect link)").map((e) => e.text)).toEqual(["Its reconnect link was opened: Ferry asked the service for a fresh Link URL and sent the browser there"]);
  await expect(reconnections.getByRole("table", { name: "Companies waiting for their end customers" })).not.toContainText("Nettle Nursery");
  expect((await items(supportApi, eng.id)).find((i) => i.name === "Nettle Nursery")!.state).toBe("verified");

  // Osier's tokens come fresh instead, in a supplementary file: checked when chosen, sent for review.
  const fresh = (await sandbox.control.issueCredentials("qhyg", eng.tenants[3]!.tenantId, "valid")).credentials;
  await openStep6Part(portal, "Fresh tokens");
  const freshPanel = portal.getByRole("region", { name: "Fresh tokens for companies that failed" });
  await freshPanel.getByLabel("File of fresh tokens").setInputFiles({
    name: "osier.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(tokenCsv([{ name: "Osier Optics", externalRef: "LM-4", credentials: fresh }])),
  });
  await expect(freshPanel.getByText("osier.csv: 1 company, ready to submit")).toBeVisible();
  await freshPanel.getByRole("button", { name: "Send fresh tokens" }).click();
  await expect(freshPanel.getByText("Fresh tokens sent: Ferry support is reviewing them")).toBeVisible();

  // Support is told it is theirs to review, accepts, and the bulk run verifies Osier.
  const supportContext = await browser.newContext();
  const consolePage = await supportContext.newPage();
  await signIn(consolePage, DEMO.sam);
  await consolePage.goto(`/engagements/${eng.id}`);
  const supportMove = consolePage.getByRole("region", { name: "Your move" });
  await expect(supportMove).toContainText("fresh tokens");
  await expect(supportMove).toBeInViewport();
  await screenshots(consolePage, null, "console-last-mile-first-screen");
  await expectAccessible(consolePage, "the console with fresh tokens to review");
  const review = consolePage.getByRole("region", { name: "Fresh tokens for companies that failed" });
  await review.getByRole("button", { name: "Accept and retry" }).click();
  await consolePage.getByRole("dialog", { name: "Accept osier.csv?" }).getByRole("button", { name: "Accept and retry" }).click();
  await expect(consolePage.getByText("Accepted osier.csv: retrying 1 company in the bulk migration.")).toBeVisible();
  await expect.poll(async () => (await items(supportApi, eng.id)).find((i) => i.name === "Osier Optics")!.state, { timeout: 60_000 }).toBe("verified");
  await openStep6Part(portal, "Reconnections");
  await expect(reconnections.getByRole("table", { name: "Companies waiting for their end customers" })).toContainText("Pine Pottery");
  await expect(reconnections.getByRole("table", { name: "Companies waiting for their end customers" })).not.toContainText("Osier Optics", { timeout: 15_000 });

  // Support produces the report from the console's next-move panel.
  await consolePage.reload();
  await expect(supportMove).toContainText("Produce the handover report: 1 company waits for its end customer");
  await supportMove.getByRole("link", { name: "Produce the handover report" }).click();
  await consolePage.getByRole("button", { name: "Produce handover report" }).click();
  await consolePage.getByRole("dialog").getByRole("button", { name: "Produce report" }).click();
  await expect(consolePage.getByRole("region", { name: `Waiting on ${org.name}` })).toContainText("The customer is to read the handover report and acknowledge it", { timeout: 15_000 });

  // The customer, coming back to the page, is told it is their move at the top of it, and acknowledges.
  await portal.goto(`/portal/engagements/${eng.id}`);
  const move = portal.getByRole("region", { name: "Your move" });
  await expect(move).toContainText("Read the handover report and acknowledge it.");
  await expect(move).toBeInViewport();
  await move.getByRole("link", { name: "Read and acknowledge the report" }).click();
  await portal.getByRole("button", { name: "Acknowledge the handover report" }).click();
  await portal.getByRole("dialog").getByRole("button", { name: "Acknowledge and delete credentials" }).click();
  await expect(portal.getByRole("region", { name: "Also for you" }).or(portal.getByRole("region", { name: "Your move" }))).toContainText("1 company was not migrated", { timeout: 15_000 });
  await expectAccessible(portal, "the portal after the acknowledgement, a company still waiting");

  // During the hypercare watch Linden's end customer revokes access. The service's webhook tells
  // Ferry (its consumer was registered when the bulk run started): the drop is on support's open
  // page within a minute, with nobody pressing "Check now" and no listing due.
  const linden = after.find((i) => i.name === "Linden Books")!;
  await consolePage.reload();
  await openStep6Part(consolePage, "Reconnections");
  const consoleRecon = consolePage.getByRole("region", { name: "Reconnections and hypercare" });
  await expect(consoleRecon.getByRole("button", { name: "Check now" })).toBeVisible();
  await sandbox.control.deauthorize(linden.companyId!, linden.connectionId!, { reason: "revoked" });
  await expect(consoleRecon.getByRole("table", { name: "Companies waiting for their end customers" })).toContainText("Linden Books", { timeout: 60_000 });
  await expect(consoleRecon).toContainText("Dropped after its migration");
  await expect(await openActivity(consolePage)).toContainText("Linden Books's connection dropped after its migration", { timeout: 15_000 });
  await consolePage.goBack();
  await expect(consoleRecon).toContainText("Dropped after its migration");
  await openStep6Part(portal, "Reconnections");
  await expect(reconnections).toContainText("Linden Books", { timeout: 15_000 });
  await expectAccessible(consolePage, "the console after a drop during the watch");
  await screenshots(consolePage, consoleRecon, "console-reconnections-after-drop");
  // The drop is support's to look at (their move, and a notice by the table) until marked seen.
  await expect(consolePage.getByRole("region", { name: "Your move" })).toContainText("dropped during the hypercare watch");
  await consoleRecon.getByRole("button", { name: "Mark as seen" }).click();
  await expect(consoleRecon.getByRole("button", { name: "Mark as seen" })).toHaveCount(0);
  await expect(consolePage.getByRole("region", { name: "Your move" })).toHaveCount(0);
  await supportContext.close();
  await customerContext.close();
});
