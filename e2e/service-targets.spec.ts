/**
 * Service targets as an admin and support use them: a target is one customer's own account on the
 * service, added for its organisation (https only), offered only to that organisation's
 * engagements beside the built-in sandbox; the admin renames it, replaces its key, sets known
 * limits, tests the connection (the answer in words, against the e2e sandbox), assigns an
 * unassigned target and archives one no engagement uses.
 */
import net from "node:net";
import { expectAccessible } from "./axe";
import { DEMO, e2eSandbox, expect, openActivity, signIn, test, uniqueSuffix } from "./fixtures";

test("an admin adds a customer's own account as its target (https only, key masked); support is offered only that organisation's targets and the built-in sandbox", async ({
  page,
  browser,
  adminApi,
  factory,
}) => {
  const org = await factory.organization("Target Org");
  const other = await factory.organization("Other Org");
  const name = `Production ${uniqueSuffix()}`;
  const apiKey = `live-key-${uniqueSuffix()}-WXYZ`;
  const othersName = `Other's production ${uniqueSuffix()}`;
  await adminApi.mutation("targets.create", { name: othersName, baseUrl: "https://api.codat.io", apiKey: `other-key-${uniqueSuffix()}`, organizationId: other.id });

  await signIn(page, DEMO.admin);
  await page.goto("/admin/targets");
  const form = page.getByRole("form", { name: "Add a service target" });
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(form.getByText("Name the target, e.g. Production — Acme Lending")).toBeVisible();

  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Organisation").selectOption({ label: org.name });
  await form.getByLabel("Base URL").fill("ftp://not-http");
  await form.getByLabel("API key").fill(apiKey);
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(form.getByText("The base URL must start with https://.")).toBeVisible();
  await form.getByLabel("Base URL").fill("http://api.codat.io");
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(form.getByText(/The base URL must use https: the API key would travel unencrypted/)).toBeVisible();

  await form.getByLabel("Base URL").fill("https://api.codat.io");
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(page.getByText(`Added ${name}.`)).toBeVisible();
  const card = page.getByRole("region", { name });
  await expect(card).toContainText(org.name);
  await expect(card).toContainText("••••WXYZ");
  await expect(card).toContainText("The service's published limits (1,000 requests per minute per address");
  await expect(page.locator("body")).not.toContainText(apiKey);
  await expect(form.getByLabel("API key")).toHaveValue("");

  const engagement = await factory.engagement({ organizationId: org.id });
  const support = await browser.newContext();
  const supportPage = await support.newPage();
  await signIn(supportPage, DEMO.sam);
  await supportPage.goto(`/engagements/${engagement.id}`);
  const details = supportPage.getByRole("region", { name: "Engagement details" });
  // A new engagement starts on the built-in sandbox.
  await expect(details).toContainText("Ferry sandbox (built-in sandbox)");
  await supportPage.getByRole("button", { name: /Change service target/ }).click();
  const dialog = supportPage.getByRole("dialog", { name: "Change service target" });
  const picker = dialog.getByLabel("Service target");
  await expect(picker.locator("option", { hasText: name })).toHaveCount(1);
  // The current one is preselected; another organisation's account is not offered at all.
  await expect(picker.locator("option:checked")).toHaveText(/^Ferry sandbox — built-in sandbox/);
  await expect(picker.locator("option", { hasText: othersName })).toHaveCount(0);
  await picker.selectOption({ label: `${name} — https://api.codat.io (key ••••WXYZ)` });
  await dialog.getByRole("button", { name: "Save target" }).click();
  await expect(dialog).toBeHidden();
  await expect(details).toContainText(`${name} (service)`);
  const timeline = (await openActivity(supportPage)).getByRole("listitem");
  await expect(timeline.first()).toContainText(`Pointed the engagement at ${name} (https://api.codat.io)`);
  await supportPage.getByRole("button", { name: /Change service target/ }).click();
  await expect(dialog.getByLabel("Service target").locator("option:checked")).toHaveText(`${name} — https://api.codat.io (key ••••WXYZ)`);
  await support.close();

  // The admin sees where it is used.
  await page.reload();
  await expect(page.getByRole("region", { name })).toContainText(`${engagement.reference} (${org.name})`);
});

test("an admin tests a target's connection, renames it, replaces its key and sets known limits, each answer in words", async ({ page, adminApi, factory }) => {
  const sandbox = e2eSandbox();
  const org = await factory.organization("Keys Org");
  const { apiKey } = await sandbox.control.createClient({ plan: "paid", name: `Keys client ${uniqueSuffix()}` });
  const name = `Sandbox account ${uniqueSuffix()}`;
  await adminApi.mutation("targets.create", { name, baseUrl: sandbox.url, apiKey: "not-a-key-of-the-sandbox-0000", kind: "sandbox", organizationId: org.id });

  await signIn(page, DEMO.admin);
  await page.goto("/admin/targets");
  let card = page.getByRole("region", { name });
  await card.getByRole("button", { name: `Test connection of ${name}` }).click();
  await expect(card.getByRole("status").filter({ hasText: "Connection test: Wrong key" })).toContainText(/the service does not know this API key \(401 Unauthorized, correlationId [0-9a-f-]{36}\)/);
  await expect(card).toContainText("Status 401");

  // Replace the key with the right one: the mask follows, the key never shows, the test now works.
  await card.getByRole("button", { name: `Replace key of ${name}` }).click();
  const keyDialog = page.getByRole("dialog", { name: `Replace the API key of ${name}` });
  await keyDialog.getByRole("button", { name: "Replace key" }).click();
  await expect(keyDialog.getByText("Enter the API key.")).toBeVisible();
  await keyDialog.getByLabel("New API key").fill(apiKey);
  await keyDialog.getByRole("button", { name: "Replace key" }).click();
  await expect(keyDialog).toBeHidden();
  await expect(page.getByText(`Replaced the API key of ${name}: it now ends ••••${apiKey.slice(-4)}.`)).toBeVisible();
  await expect(card).toContainText(`••••${apiKey.slice(-4)}`);
  await expect(page.locator("body")).not.toContainText(apiKey);
  await card.getByRole("button", { name: `Test connection of ${name}` }).click();
  await expect(card.getByRole("status").filter({ hasText: "Connection test: The key works" })).toContainText("The key works: the service answered 200 and the account holds 0 companies.");

  // Known limits: a refusal on the field, then saved and shown.
  await card.getByRole("button", { name: `Known limits of ${name}` }).click();
  const limits = page.getByRole("dialog", { name: `Known limits of ${name}` });
  await limits.getByLabel("Requests per minute").fill("lots");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(limits.getByText(/Requests per minute is a whole number from 1 to 10,000,000/)).toBeVisible();
  await limits.getByLabel("Requests per minute").fill("600000");
  await limits.getByRole("button", { name: "Save limits" }).click();
  await expect(limits).toBeHidden();
  await expect(card).toContainText("The target's known limits (600,000 requests per minute, set on the target; daily quota 1,000 × (1 + connected companies))");

  // Renamed: the card follows.
  const renamed = `${name} (renamed)`;
  await card.getByRole("button", { name: `Rename ${name}` }).click();
  const rename = page.getByRole("dialog", { name: `Rename ${name}` });
  await rename.getByLabel("Name").fill(renamed);
  await rename.getByRole("button", { name: "Save name" }).click();
  await expect(rename).toBeHidden();
  card = page.getByRole("region", { name: renamed });
  await expect(card).toBeVisible();
  await expectAccessible(page, "service targets after a connection test");
});

test("a target nothing answers at is unreachable; an unassigned target is assigned to its organisation; an archived one is offered nowhere", async ({ page, browser, adminApi, factory }) => {
  const org = await factory.organization("Assign Org");
  const unreachable = `Nobody home ${uniqueSuffix()}`;
  const port = await closedPort();
  await adminApi.mutation("targets.create", { name: unreachable, baseUrl: `http://127.0.0.1:${port}`, apiKey: `some-key-${uniqueSuffix()}`, organizationId: org.id });
  const orphan = `Whose account ${uniqueSuffix()}`;
  const orphanKey = `orphan-key-${uniqueSuffix()}`;
  await adminApi.mutation("targets.create", { name: orphan, baseUrl: "https://api.codat.io", apiKey: orphanKey });
  const builtIn = `Ferry sandbox — built-in sandbox (${e2eSandbox().url})`;
  const engagement = await factory.engagement({ organizationId: org.id });

  await signIn(page, DEMO.admin);
  await page.goto("/admin/targets");
  const nobody = page.getByRole("region", { name: unreachable });
  await nobody.getByRole("button", { name: `Test connection of ${unreachable}` }).click();
  await expect(nobody.getByRole("status").filter({ hasText: "Connection test: Unreachable" })).toContainText(`Unreachable: nothing answered at 127.0.0.1:${port} (ECONNREFUSED).`);

  const card = page.getByRole("region", { name: orphan });
  await expect(card).toContainText("Unassigned");
  await card.getByRole("button", { name: `Assign organisation to ${orphan}` }).click();
  const assign = page.getByRole("dialog", { name: `Assign ${orphan}` });
  await assign.getByRole("button", { name: "Assign" }).click();
  await expect(assign.getByText("Choose an organisation.")).toBeVisible();
  await assign.getByLabel("Organisation").selectOption({ label: org.name });
  await expectAccessible(page, "the assign dialog");
  await assign.getByRole("button", { name: "Assign" }).click();
  await expect(assign).toBeHidden();
  await expect(card).toContainText(org.name);
  await expect(card.getByRole("button", { name: `Assign organisation to ${orphan}` })).toHaveCount(0);

  // Support points the engagement at it; archiving is then refused, with the engagement named.
  const support = await browser.newContext();
  const supportPage = await support.newPage();
  await signIn(supportPage, DEMO.sam);
  await supportPage.goto(`/engagements/${engagement.id}`);
  await supportPage.getByRole("button", { name: /Change service target/ }).click();
  const picker = supportPage.getByRole("dialog", { name: "Change service target" });
  await picker.getByLabel("Service target").selectOption({ label: `${orphan} — https://api.codat.io (key ••••${orphanKey.slice(-4)})` });
  await picker.getByRole("button", { name: "Save target" }).click();
  await expect(picker).toBeHidden();

  await page.reload();
  await page.getByRole("region", { name: orphan }).getByRole("button", { name: `Archive ${orphan}` }).click();
  const archive = page.getByRole("dialog", { name: `Archive ${orphan}?` });
  await archive.getByRole("button", { name: "Archive target" }).click();
  await expect(archive.getByRole("alert")).toContainText(`is in use by an engagement that is not finished (${engagement.reference}, ${org.name})`);
  await archive.getByRole("button", { name: "Cancel" }).click();

  // Pointed back at the built-in sandbox, the target can go; it is offered no more.
  await supportPage.getByRole("button", { name: /Change service target/ }).click();
  await picker.getByLabel("Service target").selectOption({ label: builtIn });
  await picker.getByRole("button", { name: "Save target" }).click();
  await expect(picker).toBeHidden();
  await page.getByRole("region", { name: orphan }).getByRole("button", { name: `Archive ${orphan}` }).click();
  await archive.getByRole("button", { name: "Archive target" }).click();
  await expect(archive).toBeHidden();
  await expect(page.getByText(`Archived ${orphan}.`)).toBeVisible();
  await expect(page.getByRole("region", { name: orphan })).toContainText("Archived");
  await supportPage.getByRole("button", { name: /Change service target/ }).click();
  await expect(picker.getByLabel("Service target").locator("option", { hasText: orphan })).toHaveCount(0);
  await support.close();
});

/** A port on this machine that nothing listens on (taken and given back at once). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
