import { DEMO, expect, signIn, test } from "./fixtures";

test("the engagement list filters by search, platform and step, and keeps the filters in the URL", async ({ page, factory }) => {
  const org = await factory.organization("List Org");
  const shopify = await factory.engagement({ organizationId: org.id, platformKey: "fztf" });
  const wave = await factory.engagement({ organizationId: org.id, platformKey: "pbtz" });
  await factory.detailsAccepted({ engagement: wave, customer: await factory.customerUser(org), platformKey: "pbtz" });

  await signIn(page, DEMO.priya);
  await page.goto("/engagements");
  const table = page.getByRole("table", { name: "Engagements" });
  const bodyRows = table.locator("tbody tr");

  await page.getByRole("searchbox", { name: "Search", exact: true }).fill(org.name);
  await expect(page).toHaveURL(/[?&]q=/);
  await expect(bodyRows).toHaveCount(2);

  // Counts per step follow the other filters; a chip filters by the step.
  const chips = page.getByRole("group", { name: "Current step" });
  await expect(chips.getByRole("button", { name: /^All steps/ })).toContainText("2");
  await expect(chips.getByRole("button", { name: /^1\. Details gathered/ })).toContainText("1");
  await expect(chips.getByRole("button", { name: /^2\. Time agreed/ })).toContainText("1");
  await chips.getByRole("button", { name: /^2\. Time agreed/ }).click();
  await expect(chips.getByRole("button", { name: /^2\. Time agreed/ })).toHaveAttribute("aria-pressed", "true");
  await expect(page).toHaveURL(/[?&]step=2/);
  await expect(bodyRows).toHaveCount(1);
  await expect(bodyRows.first()).toContainText(wave.reference);

  // The platform filter, then a reload: the URL alone restores the view.
  await chips.getByRole("button", { name: /^All steps/ }).click();
  // The next filter builds on this one: wait until the list has taken it.
  await expect(chips.getByRole("button", { name: /^All steps/ })).toHaveAttribute("aria-pressed", "true");
  await page.getByLabel("Platform").selectOption({ label: "Shopify" });
  await expect(page).toHaveURL(/[?&]platform=fztf/);
  await expect(bodyRows).toHaveCount(1);
  await expect(bodyRows.first()).toContainText(shopify.reference);
  await page.reload();
  await expect(page.getByLabel("Platform")).toHaveValue("fztf");
  await expect(page.getByRole("searchbox", { name: "Search", exact: true })).toHaveValue(org.name);
  await expect(bodyRows).toHaveCount(1);

  // Nothing matches: an empty state with a way out.
  await page.getByLabel("Status").selectOption({ label: "Cancelled" });
  await expect(page.getByText("No engagements match these filters")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(page).toHaveURL(/\/engagements$/);
  await expect(page.getByRole("searchbox", { name: "Search", exact: true })).toHaveValue("");
});

test("the console's navigation counts the engagements waiting on support, in the first paint, and opens them", async ({ page, factory }) => {
  const org = await factory.organization("Queue Org");
  const wave = await factory.engagement({ organizationId: org.id, platformKey: "pbtz" });
  // Details accepted: support's move, to propose a window.
  await factory.detailsAccepted({ engagement: wave, customer: await factory.customerUser(org), platformKey: "pbtz" });

  await signIn(page, DEMO.priya);
  // The count is in the server's HTML (other journeys change it meanwhile: only that it is there).
  const html = await (await page.request.get("/engagements")).text();
  const text = html.replaceAll("<!-- -->", "").replace(/<[^>]+>/g, "").replaceAll("&#x27;", "'");
  expect(text).toMatch(/Support's move\d+ engagements? waits? on support/);
  await page.goto("/engagements");
  const queue = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Support's move/ });
  await expect(queue).toContainText(/\d+/);
  await expect(queue).not.toHaveAttribute("aria-current", "page");
  await queue.click();
  await expect(page).toHaveURL(/[?&]waiting=support/);
  await expect(queue).toHaveAttribute("aria-current", "page");
  await expect(page.getByLabel("Whose move")).toHaveValue("support");
  await page.getByRole("searchbox", { name: "Search", exact: true }).fill(org.name);
  await expect(page.getByRole("table", { name: "Engagements" }).locator("tbody tr")).toHaveCount(1);
  await expect(page.getByRole("table", { name: "Engagements" }).locator("tbody tr").first()).toContainText(wave.reference);
});
