/**
 * The bulk run's controls and run-level notices in the console, each on an engagement
 * of its own at step 6 on a sandbox client of its own: a free trial that fills up stops the run in
 * words until support resumes it; pause (with a reason), resume and cancel (which needs a reason);
 * and one company set aside (with a reason) and retried from the table.
 *
 * No global sandbox faults: the e2e sandbox is shared by specs running in parallel. Where a test
 * needs time to act while the run is under way, its companies carry a big `records` volume, so
 * their syncs take tens of seconds on the sandbox (300 ms + 2 ms per record).
 */
import type { Page } from "@playwright/test";
import { basicAuth } from "@/server/sandbox/controls/control-client";
import { DEMO, e2eSandbox, expect, openActivity, signIn, test, type ReadyCompany, type TrpcApi } from "./fixtures";
import { screenshots } from "./screenshots";

/** Step 5 through its procedure (its screens have their own journey): Ferry picks the smallest company. */
async function passStep5(api: TrpcApi, engagementId: string): Promise<void> {
  const { runId } = await api.mutation<{ runId: string }>("tests.start", { engagementId, kind: "pilot", itemId: null });
  await expect.poll(async () => (await api.query<{ status: string }>("tests.get", { engagementId, runId })).status, { timeout: 45_000 }).toBe("passed");
}

/** The console's engagement page as Sam, and step 6's bulk section on it (where step 6 opens once step 5 has passed). */
async function openBulk(page: Page, engagementId: string) {
  await signIn(page, DEMO.sam);
  await page.goto(`/engagements/${engagementId}`);
  const bulk = page.getByRole("region", { name: "Step 6: Bulk migration and handover" }).getByRole("region", { name: "Bulk migration", exact: true });
  return {
    bulk,
    run: bulk.getByRole("article", { name: "Bulk run" }),
    table: bulk.getByRole("table", { name: "Companies of the bulk migration" }),
    /** The entries of the activity matching `text`, seen there (one each); then back to the bulk run. */
    expectInActivity: async (text: string | RegExp) => {
      const list = await openActivity(page);
      await expect(list.getByRole("listitem").filter({ hasText: text })).toHaveCount(1);
      await page.goBack();
      await expect(page.getByRole("region", { name: "Bulk migration", exact: true })).toBeVisible();
    },
  };
}

/**
 * Starts the bulk run through its button and dialog. The engagements here agreed a window a week
 * on, so the dialog asks why the run starts before it.
 */
async function startBulk(page: Page, bulk: ReturnType<Page["getByRole"]>, companies: number): Promise<void> {
  await bulk.getByRole("button", { name: "Start bulk migration", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: /Start the bulk migration of/ });
  await expect(dialog).toContainText(`${companies} companies not yet migrated`);
  await dialog.getByLabel("Why start outside the agreed window?").fill("Testing the controls ahead of the window.");
  await dialog.getByRole("button", { name: "Start bulk migration" }).click();
  await expect(page.getByText("The bulk migration is started outside the agreed window: the customer is told why, and a worker takes it up now.")).toBeVisible();
}

/** The bulk run's status line, which starts with its status badge ("Paused", "Running"…) and goes on with its target. */
const runStatus = (label: string) => new RegExp(`^${label}\\s*on E2E sandbox `);

const smallCompanies = (prefix: string, n: number): ReadyCompany[] => Array.from({ length: n }, (_, i) => ({ name: `${prefix} ${String.fromCharCode(65 + i)}`, records: 3 }));

test("a full free trial stops the run in words, failing no company, and Resume carries on once there is room", async ({ page, factory, supportApi }) => {
  test.setTimeout(90_000);
  const sandbox = e2eSandbox();
  const org = await factory.organization("Bulk Free Org");
  // The smallest company is step 5's; the other five are the bulk run's.
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    plan: "free",
    companies: [{ name: "Free Pilot Ltd", records: 2 }, ...smallCompanies("Free Co", 5)],
  });
  // 48 companies already exist on the free-trial account; step 5 makes the 49th, the bulk run the 50th, and the next is refused 402.
  const existing: string[] = [];
  for (let i = 0; i < 48; i++) {
    const response = await fetch(`${sandbox.url}/companies`, {
      method: "POST",
      headers: { Authorization: basicAuth(eng.sandboxApiKey), "Content-Type": "application/json" },
      body: JSON.stringify({ name: `Existing ${i + 1}` }),
    });
    expect(response.status).toBe(200);
    existing.push(((await response.json()) as { id: string }).id);
  }
  await passStep5(supportApi, eng.id);

  const { bulk, run, table, expectInActivity } = await openBulk(page, eng.id);
  await startBulk(page, bulk, 5);

  // The stop, in words, with Resume offered; nothing failed.
  const stop = bulk.getByRole("alert").filter({ hasText: "Stopped" });
  await expect(stop).toContainText("Free-trial company limit of 50 reached: 50 companies exist on this service account", { timeout: 30_000 });
  await expect(stop).toContainText("Fix the cause, then resume the run.");
  await expect(run).toHaveText(runStatus("Stopped"));
  await expect(bulk.getByRole("button", { name: "Resume", exact: true })).toBeVisible();
  await expect(bulk.getByRole("button", { name: "Pause", exact: true })).toHaveCount(0);
  await expect(bulk.getByRole("button", { name: /Retry failed/ })).toHaveCount(0);
  await bulk.getByLabel("Filter by state").selectOption({ label: "Failed" });
  await expect(bulk.getByText("No companies match")).toBeVisible();
  await bulk.getByLabel("Filter by state").selectOption({ label: "Every state" });
  await expectInActivity("The bulk migration stopped: Free-trial company limit of 50 reached");

  // The cause is fixed: ten of the old companies are deleted from the account. Resume carries on to the end.
  for (const id of existing.slice(0, 10)) {
    const response = await fetch(`${sandbox.url}/companies/${id}`, { method: "DELETE", headers: { Authorization: basicAuth(eng.sandboxApiKey) } });
    expect(response.status).toBe(204);
  }
  await bulk.getByRole("button", { name: "Resume", exact: true }).click();
  await expect(page.getByText("The bulk migration resumes.")).toBeVisible();
  await expect(stop).toHaveCount(0);
  // The bar and the counts cover every company, step 5's included (the run itself took five).
  await expect(bulk.getByRole("progressbar", { name: "Companies finished" })).toHaveAttribute("aria-valuenow", "6", { timeout: 45_000 });
  const reconciled = "6 companies supplied: 6 created on the service, 6 linked, 6 synced; 6 verified (the single-company test's company, Free Pilot Ltd, included)";
  await expect(page.getByText(`The bulk migration has finished: ${reconciled}.`)).toBeVisible();
  await expect(run).toHaveText(runStatus("Completed"));
  await expect(table.getByRole("row").filter({ hasText: "Free Co" }).filter({ hasText: "Verified" })).toHaveCount(5);
  // The activity, once the run is over (a quick run may end while it is open, and the end is announced only on the run's view).
  await expectInActivity("Resumed the bulk migration after it stopped (Free-trial company limit of 50 reached");
  await expectInActivity(`The bulk migration finished: ${reconciled}`);
});

test("support pauses the run with a reason, resumes it, and cancels it (a cancel needs a reason)", async ({ page, factory, supportApi }) => {
  test.setTimeout(90_000);
  const org = await factory.organization("Bulk Controls Org");
  // Nine companies of 15,000 records a data type: their syncs take half a minute, time enough to act while the run is under way.
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [{ name: "Pause Pilot Ltd", records: 2 }, ...Array.from({ length: 9 }, (_, i) => ({ name: `Slow Co ${i + 1}`, records: 15_000 }))],
  });
  await passStep5(supportApi, eng.id);
  const { bulk, run, expectInActivity } = await openBulk(page, eng.id);
  await startBulk(page, bulk, 9);

  // Pause, with a reason: the status and the reason show, and the timeline says so.
  await bulk.getByRole("button", { name: "Pause", exact: true }).click();
  const pause = page.getByRole("dialog", { name: "Pause the bulk migration" });
  await pause.getByLabel("Why pause?").fill("The customer asked to wait for their month-end");
  await pause.getByRole("button", { name: "Pause" }).click();
  await expect(pause).toBeHidden();
  await expect(page.getByText("The bulk migration is paused.")).toBeVisible();
  await expect(run).toHaveText(runStatus("Paused"));
  await expect(bulk.getByRole("status").filter({ hasText: "Paused" })).toContainText(": The customer asked to wait for their month-end");
  await expectInActivity("Paused the bulk migration: The customer asked to wait for their month-end");
  await expect(bulk.getByRole("button", { name: "Pause", exact: true })).toHaveCount(0);
  // Only step 5's company is final yet.
  await expect(bulk.getByRole("progressbar", { name: "Companies finished" })).toHaveAttribute("aria-valuenow", "1");

  // Resume: running again.
  await bulk.getByRole("button", { name: "Resume", exact: true }).click();
  await expect(page.getByText("The bulk migration resumes.")).toBeVisible();
  await expect(run).toHaveText(runStatus("Running"));
  await expectInActivity("Resumed the bulk migration");
  await expect(bulk.getByRole("status").filter({ hasText: "Paused" })).toHaveCount(0);
  await expect(bulk.getByRole("button", { name: "Resume", exact: true })).toHaveCount(0);
  // The panel says what the run is doing; no Start is offered (and refused as "already running") beside it.
  await expect(run.getByTestId("bulk-activity")).toHaveText(/^Migrating: \d+ compan(y|ies) (syncing|being connected|still to start)/);
  await expect(bulk.getByRole("button", { name: "Start bulk migration", exact: true })).toHaveCount(0);
  await expect(bulk.getByText(/already running/)).toHaveCount(0);
  await screenshots(page, page.getByRole("region", { name: "Bulk migration", exact: true }), "console-bulk-running");

  // Cancel: refused without a reason, on the field; with one, the run shows cancelled and why.
  await bulk.getByRole("button", { name: "Cancel the run", exact: true }).click();
  const cancel = page.getByRole("dialog", { name: "Cancel the bulk migration" });
  await cancel.getByRole("button", { name: "Cancel the run" }).click();
  const reason = cancel.getByLabel("Why cancel?");
  await expect(reason).toHaveAttribute("aria-invalid", "true");
  await expect(reason).toHaveAccessibleDescription(/Say why\./);
  await expect(run).toHaveText(runStatus("Running"));
  await reason.fill("Wrong service target: the customer will give us another");
  await cancel.getByRole("button", { name: "Cancel the run" }).click();
  await expect(cancel).toBeHidden();
  await expect(page.getByText("The bulk migration is cancelled.")).toBeVisible();
  await expect(run).toHaveText(runStatus("Cancelled"));
  await expect(bulk.getByRole("status").filter({ hasText: "Cancelled" })).toContainText(": Wrong service target: the customer will give us another");
  await expectInActivity(/Cancelled the bulk migration with \d+ compan(y|ies) unfinished: Wrong service target: the customer will give us another/);
  await expect(bulk.getByRole("button", { name: "Cancel the run", exact: true })).toHaveCount(0);
  await expect(bulk.getByRole("button", { name: "Start bulk migration", exact: true })).toBeEnabled();
});

test("support sets a company aside from the table with a reason, and retries it to verified", async ({ page, factory, supportApi }) => {
  test.setTimeout(90_000);
  const org = await factory.organization("Bulk Aside Org");
  // The company set aside syncs for about 10 s, so it is still under way when support sets it aside.
  const eng = await factory.readyForSingleCompanyTest({
    organization: org,
    companies: [{ name: "Aside Pilot Ltd", records: 2 }, { name: "Lagging Books Ltd", records: 5_000 }, ...smallCompanies("Quick Co", 2)],
  });
  await passStep5(supportApi, eng.id);
  const { bulk, run, table, expectInActivity } = await openBulk(page, eng.id);
  await startBulk(page, bulk, 3);
  const row = table.getByRole("row").filter({ hasText: "Lagging Books Ltd" });
  /** The row's state badge (the column headed State). */
  const state = row.getByRole("cell").nth(1);
  await expect(table.getByRole("columnheader").nth(1)).toHaveText("State");

  // Set aside needs a reason: refused on the field without one.
  await row.getByRole("button", { name: "Set Lagging Books Ltd aside" }).click();
  const dialog = page.getByRole("dialog", { name: "Set Lagging Books Ltd aside" });
  await dialog.getByRole("button", { name: "Set aside" }).click();
  const reason = dialog.getByLabel("Why set it aside?");
  await expect(reason).toHaveAccessibleDescription(/Say why\./);
  await reason.fill("The customer closed this company last month");
  await dialog.getByRole("button", { name: "Set aside" }).click();
  await expect(dialog).toBeHidden();
  // (Its announcement may give way at once to the run's end: the other two are quick.)
  await expect(state).toHaveText("Set aside");
  await expect(row).toContainText("The customer closed this company last month");

  // The run finishes without it, and it stays set aside.
  await expect(bulk.getByRole("progressbar", { name: "Companies finished" })).toHaveAttribute("aria-valuenow", "4", { timeout: 30_000 });
  await expect(page.getByText(/^The bulk migration has finished: 4 companies supplied: .*; 3 verified, 1 set aside \(the single-company test's company, Aside Pilot Ltd, included\)\./)).toBeVisible();
  await expect(state).toHaveText("Set aside");
  await expect(table.getByRole("row").filter({ hasText: "Quick Co" }).filter({ hasText: "Verified" })).toHaveCount(2);
  await expectInActivity("Set Lagging Books Ltd aside: The customer closed this company last month");

  // Retry puts it back into the run, which ends with it verified.
  await row.getByRole("button", { name: "Retry Lagging Books Ltd" }).click();
  await expect(page.getByText("Lagging Books Ltd is put back into the run.")).toBeVisible();
  await expect(state).not.toHaveText("Set aside");
  await expect(row).not.toContainText("The customer closed this company last month");
  await expect(state).toHaveText("Verified", { timeout: 45_000 });
  await expect(run).toHaveText(runStatus("Completed"));
  await expect(page.getByText(/^The bulk migration has finished: 4 companies supplied: 4 created on the service, 4 linked, 4 synced; 4 verified \(/)).toBeVisible();
  await expectInActivity("Retrying Lagging Books Ltd (was set aside)");
});
