import { expect, invitationLinkFor, signIn, test, uniqueSuffix } from "./fixtures";

test("an admin invites a customer user, who sets a password, signs in and sees only their organisation's engagements", async ({
  page,
  browser,
  factory,
  adminApi,
}) => {
  const org = await factory.organization("Invited Org");
  const ours = await factory.engagement({ organizationId: org.id, platformKey: "fztf" });
  // Another organisation's engagement, which the new user must never see.
  const other = await factory.organization("Someone Else");
  const theirs = await factory.engagement({ organizationId: other.id, platformKey: "fztf" });

  const suffix = uniqueSuffix();
  const email = `invitee-${suffix}@e2e.test`;
  const password = `invitee-${suffix}-pw`;

  // The admin sends the invitation from the console.
  await signIn(page, { email: "admin@ferry.test", password: "ferry-admin-demo" });
  await page.goto("/admin/invitations");
  const form = page.getByRole("form", { name: "Invite someone" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill(`Iris ${suffix}`);
  await form.getByLabel("Role").selectOption("customer");
  await form.getByLabel("Organisation").selectOption({ label: org.name });
  await form.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${email}`)).toBeVisible();
  await expect(page.getByRole("table", { name: "Invitations" }).getByRole("row").filter({ hasText: email })).toContainText("Pending");

  // The email is in the outbox with its link hidden; the admin reveals it to pass it on.
  await page.getByRole("link", { name: "Outbox", exact: true }).click();
  const message = page.getByRole("article", { name: new RegExp(`Email to ${email}`) });
  await expect(message).toBeVisible();
  await expect(message).toContainText("[one-time link hidden]");
  await expect(message.getByRole("link", { name: /\/invite\// })).toHaveCount(0);
  await message.getByRole("button", { name: "Show invitation link" }).click();
  const link = message.getByRole("link", { name: /\/invite\// });
  const href = await link.getAttribute("href");
  expect(href).toBe(await invitationLinkFor(adminApi, email));

  // The invitee opens the link in their own browser.
  const invitee = await browser.newContext();
  const inviteePage = await invitee.newPage();
  await inviteePage.goto(href!);
  await expect(inviteePage.getByRole("heading", { name: "Welcome to Ferry" })).toBeVisible();
  await expect(inviteePage.getByText(org.name)).toBeVisible();
  await inviteePage.getByLabel("Password", { exact: true }).fill(password);
  await inviteePage.getByLabel("Repeat the password").fill(password);
  await inviteePage.getByRole("button", { name: "Set password" }).click();

  // Setting the password signs them in: they land in the portal, not on the sign-in page.
  await inviteePage.waitForURL("**/portal");

  const table = inviteePage.getByRole("table", { name: "Your engagements" });
  await expect(table.getByRole("link", { name: ours.reference })).toBeVisible();
  await expect(table.getByRole("row")).toHaveCount(2); // the header and their one engagement
  await expect(inviteePage.getByText(theirs.reference)).toHaveCount(0);
  await expect(inviteePage.getByText(other.name)).toHaveCount(0);

  // They can read the checklist of their engagement.
  await table.getByRole("link", { name: ours.reference }).click();
  await expect(inviteePage.getByRole("heading", { name: ours.reference })).toBeVisible();
  await expect(inviteePage.getByRole("region", { name: "Step 1: Details gathered" })).toBeVisible();
  await expect(inviteePage.getByRole("button", { name: /Complete|Start|Reopen/ })).toHaveCount(0);

  // The link worked once: opening it again says so and offers nothing else.
  await inviteePage.goto(href!);
  await expect(inviteePage.getByText("This invitation has already been used.")).toBeVisible();
  await expect(inviteePage.getByRole("textbox")).toHaveCount(0);
  await expect(inviteePage.getByRole("button")).toHaveCount(0);
  await expect(inviteePage.getByRole("link", { name: "Go to sign in" })).toBeVisible();
  await invitee.close();
});
