/**
 * The Link pages' HTML: small, self-contained (inline CSS, no scripts, no external assets) and
 * readable by an end customer on a phone. Pure functions of what they show; every value is escaped.
 */
import type { ConnectionStatus, PlatformKey } from "../../platforms";

/** Escapes text for HTML content and double-quoted attributes. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

const COLOURS: Record<PlatformKey, string> = {
  fbrh: "#0b6e4f",
  vxvy: "#0b4f9c",
  qhyg: "#1f6f1f",
  fztf: "#3d5c1a",
  pbtz: "#1b3f8b",
  rwuv: "#a1331c",
};

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase())
    .join("")
    .slice(0, 2);
}

/** A platform's badge (its initials on its colour), also served as its logo. */
export function platformBadgeSvg(params: { key: PlatformKey; name: string; size?: number }): string {
  const size = params.size ?? 40;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 40 40" role="img" aria-label="${esc(params.name)}">` +
    `<rect width="40" height="40" rx="8" fill="${COLOURS[params.key]}"/>` +
    `<text x="20" y="26" text-anchor="middle" font-family="system-ui, sans-serif" font-size="16" font-weight="700" fill="#fff">${esc(initials(params.name))}</text>` +
    `</svg>`
  );
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f6f7f9}
main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.tag{margin:0 0 .5rem;font-size:.875rem;color:#4b5563;text-transform:uppercase;letter-spacing:.04em}
h1{font-size:1.75rem;line-height:1.25;margin:0 0 .75rem;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:2rem 0 .75rem}
h3{font-size:1.125rem;margin:0;overflow-wrap:anywhere}
p{margin:.5rem 0}
a{color:#1d4ed8}
ul.connections{list-style:none;margin:0;padding:0;display:grid;gap:.75rem}
.card{background:#fff;border:1px solid #d1d5db;border-radius:.75rem;padding:1rem}
.head{display:flex;align-items:center;gap:.75rem}
.head svg{flex:none}
.head h2,.head h3{margin:0;font-size:1.125rem}
ul.connections+p{margin-top:1rem}
.status{display:inline-block;padding:.125rem .5rem;border-radius:999px;font-weight:600;font-size:.875rem}
.s-Linked{background:#dcfce7;color:#14532d}
.s-Deauthorized{background:#fee2e2;color:#7f1d1d}
.s-PendingAuth,.s-Unlinked{background:#e5e7eb;color:#1f2937}
details{margin:.5rem 0}
summary{cursor:pointer;color:#1f2937}
.said{font-size:.875rem;color:#374151;overflow-wrap:anywhere}
button{font:inherit;font-weight:600;min-height:44px;padding:.625rem 1.25rem;border:0;border-radius:.5rem;background:#1d4ed8;color:#fff;cursor:pointer;margin-top:.75rem}
button:hover{background:#1e40af}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
fieldset{border:1px solid #d1d5db;border-radius:.75rem;background:#fff;padding:1rem;margin:0;min-width:0}
.card fieldset{margin-top:.75rem;padding:.75rem 1rem}
legend{float:left;width:100%;font-weight:600;padding:0;margin:0 0 .5rem}
legend~*{clear:both}
.choice{display:flex;align-items:center;gap:.625rem;min-height:44px}
.choice input{flex:none;width:1.25rem;height:1.25rem;margin:0}
.choice label{min-width:0;overflow-wrap:anywhere}
.done{background:#dcfce7;border:1px solid #86efac;border-radius:.75rem;padding:1rem;margin:1rem 0}
.done h2{margin:0 0 .25rem}
.problem{background:#fee2e2;border:1px solid #fca5a5;border-radius:.5rem;padding:.75rem;margin:.75rem 0;color:#7f1d1d}
.note{margin-top:2rem;font-size:.875rem;color:#4b5563}
.field label{display:block;font-weight:600}
.hint{font-size:.875rem;color:#4b5563;margin:.25rem 0}
.field input{display:block;width:100%;font:inherit;min-height:44px;padding:.5rem .75rem;border:1px solid #6b7280;border-radius:.5rem;background:#fff}
.field input[aria-invalid=true]{border-color:#b91c1c}
ul.uris{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
ul.uris li{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem}
ul.uris code{overflow-wrap:anywhere;min-width:0}
ul.uris button{margin-top:0;background:#fff;color:#991b1b;border:1px solid #991b1b}
ul.uris button:hover{background:#fee2e2}
dl.facts{margin:.75rem 0;display:grid;gap:.25rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0 0 .5rem;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9375rem}
@media (max-width:30rem){button{width:100%}}
`;

/** A whole page: the shared head and style around `body` (the developer console's pages use it too). */
export function page(params: { title: string; body: string }): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex, nofollow">` +
    `<title>${esc(params.title)}</title><style>${STYLE}</style></head>` +
    `<body><main>${params.body}</main></body></html>`
  );
}

const TAG = `<p class="tag">Service sandbox · Link</p>`;
const SIMULATION_NOTE =
  `<p class="note">This is the service sandbox's simulation of the Link flow: pressing Connect stands for you signing in ` +
  `to the platform and allowing access. No real platform is contacted and no password is asked for.</p>`;

/** What a connection's status means to the end customer. */
function statusWords(status: ConnectionStatus, platformName: string, companyName: string): string {
  switch (status) {
    case "Linked":
      return `Connected: ${companyName}'s software provider can sync your ${platformName} data.`;
    case "Deauthorized":
      return `${platformName} no longer gives access. Connect again to restore it.`;
    case "PendingAuth":
      return `Not connected yet.`;
    case "Unlinked":
      return `Disconnected by ${companyName}'s software provider. Connect to link it again.`;
    default: {
      const never: never = status;
      return never;
    }
  }
}

export type LinkConnectionView = {
  id: string;
  platformKey: PlatformKey;
  platformName: string;
  status: ConnectionStatus;
  /** The platform's words for the latest active error, shown on a Deauthorized connection. */
  platformSaid: string | null;
  /**
   * The name of the account the connection already knows (a reconnection), or null: where there is
   * one, its Connect asks which account the end customer is signed in to (field `account`).
   */
  knownAccount: string | null;
  /** What the platform calls an account in words: "company", or "shop" for commerce. */
  accountNoun: "company" | "shop";
};

/** The values of a Connect form's `account` field: the known account, or a different one of the platform. */
export const ACCOUNT_CHOICES = ["known", "other"] as const;
export type AccountChoice = (typeof ACCOUNT_CHOICES)[number];

/** The hidden fields of a Connect form: the page's nonce, and the link's one-time token when it has one. */
function hiddenFields(nonce: string, token: string | null): string {
  const tokenField = token === null ? "" : `<input type="hidden" name="token" value="${esc(token)}">`;
  return `<input type="hidden" name="nonce" value="${esc(nonce)}">${tokenField}`;
}

/**
 * The choice of account on a reconnection's Connect form: the known one (checked) or a different
 * one of the platform, as a radio group with a legend; `problem` shows a refused choice at it.
 */
function accountChoice(c: LinkConnectionView, knownAccount: string, problem: string | null): string {
  const id = esc(c.id);
  const problemId = `account-problem-${id}`;
  const problemText = problem ? `<p class="problem" id="${problemId}">${esc(problem)}</p>` : "";
  const describedBy = problem ? ` aria-describedby="${problemId}"` : "";
  const option = (value: AccountChoice, label: string, checked: boolean) =>
    `<div class="choice"><input type="radio" id="account-${id}-${value}" name="account" value="${value}"${checked ? " checked" : ""}>` +
    `<label for="account-${id}-${value}">${esc(label)}</label></div>`;
  return (
    `<fieldset${describedBy}><legend>Which ${esc(c.platformName)} ${c.accountNoun} are you signed in to?</legend>${problemText}` +
    option("known", knownAccount, true) +
    option("other", `A different ${c.platformName} ${c.accountNoun}`, false) +
    `</fieldset>`
  );
}

function connectionCard(params: {
  basePath: string;
  companyId: string;
  companyName: string;
  connection: LinkConnectionView;
  nonce: string;
  token: string | null;
  headingLevel: 2 | 3;
  /** A refused choice of account on this connection's Connect, shown at the choice. */
  accountProblem?: string | null;
}): string {
  const c = params.connection;
  const h = `h${params.headingLevel}`;
  const headingId = `connection-${esc(c.id)}`;
  const said =
    c.status === "Deauthorized" && c.platformSaid
      ? `<details><summary>What ${esc(c.platformName)} said</summary><p class="said">${esc(c.platformSaid)}</p></details>`
      : "";
  const action = `${params.basePath}/link/company/${encodeURIComponent(params.companyId)}/connections/${encodeURIComponent(c.id)}/connect`;
  const form =
    c.status === "Linked"
      ? ""
      : `<form method="post" action="${esc(action)}">${hiddenFields(params.nonce, params.token)}` +
        (c.knownAccount !== null
          ? accountChoice(c, c.knownAccount, params.accountProblem ?? null)
          : params.accountProblem
            ? `<p class="problem">${esc(params.accountProblem)}</p>`
            : "") +
        `<button type="submit">Connect ${esc(c.platformName)}</button></form>`;
  return (
    `<li class="card"><div class="head">${platformBadgeSvg({ key: c.platformKey, name: c.platformName }).replace('role="img"', 'aria-hidden="true"')}` +
    `<${h} id="${headingId}">${esc(c.platformName)}</${h}></div>` +
    `<p>Status: <span class="status s-${c.status}">${c.status}</span></p>` +
    `<p>${esc(statusWords(c.status, c.platformName, params.companyName))}</p>${said}${form}</li>`
  );
}

/** The confirmation that a Connect succeeded. */
function doneSection(companyName: string, platformName: string): string {
  const name = esc(companyName);
  return (
    `<section class="done" role="status" aria-labelledby="done-heading"><h2 id="done-heading">Connected</h2>` +
    `<p>Your ${esc(platformName)} account is connected to ${name}. ${name}'s software provider can sync your data again. You can close this page.</p></section>`
  );
}

/**
 * The confirmation alone, where a Connect with a one-time Link URL lands: the token is spent, so
 * the page shows no connections and no Connect button, only that it worked.
 */
export function connectedLinkPage(params: { company: { name: string }; platformName: string }): string {
  const title = `Connect ${params.company.name}`;
  return page({
    title: `${title} — Service sandbox`,
    body: `${TAG}<h1>${esc(title)}</h1>${doneSection(params.company.name, params.platformName)}${SIMULATION_NOTE}`,
  });
}

/**
 * The company's Link page: its name, each connection's platform and status with a Connect button
 * where it is not connected, or (no connection at all) the platforms to choose from. `only`
 * narrows it to one connection (the connection's linkUrl); `connected` shows the confirmation.
 * `token`: the one-time Link URL's token the page was opened with, carried in its forms and links.
 */
export function companyLinkPage(params: {
  basePath: string;
  company: { id: string; name: string };
  connections: readonly LinkConnectionView[];
  platforms: readonly { key: PlatformKey; name: string }[];
  nonce: string;
  /** The one-time Link URL's token (null: the client does not use them). */
  token: string | null;
  only?: string;
  connected?: { platformName: string } | null;
  /** A refused choice of platform, shown at the choice. */
  choiceProblem?: string | null;
  /** A refused choice of account on a connection's Connect, shown at that connection's choice. */
  accountProblem?: { connectionId: string; message: string } | null;
}): string {
  const { company, basePath } = params;
  const name = esc(company.name);
  const companyPath = `${basePath}/link/company/${encodeURIComponent(company.id)}`;
  const companyHref = params.token === null ? companyPath : `${companyPath}?token=${encodeURIComponent(params.token)}`;
  const shown = params.only ? params.connections.filter((c) => c.id === params.only) : params.connections;
  const single = params.only ? shown[0] : undefined;
  const problemOf = (c: LinkConnectionView) => (params.accountProblem?.connectionId === c.id ? params.accountProblem.message : null);

  const title = single ? `Connect ${single.platformName} for ${company.name}` : `Connect ${company.name}`;
  const parts: string[] = [TAG, `<h1>${esc(title)}</h1>`];
  if (params.connected) parts.push(doneSection(company.name, params.connected.platformName));
  parts.push(
    `<p>${name}'s software provider reads your accounting or commerce data through the service. ` +
      `Connecting gives the service access to your account on the platform; you can disconnect it there at any time.</p>`,
  );

  if (single) {
    parts.push(`<ul class="connections">${connectionCard({ basePath, companyId: company.id, companyName: company.name, connection: single, nonce: params.nonce, token: params.token, headingLevel: 2, accountProblem: problemOf(single) })}</ul>`);
    parts.push(`<p><a href="${esc(companyHref)}">All of ${name}'s connections</a></p>`);
  } else if (shown.length > 0) {
    parts.push(`<h2>Your connections</h2>`);
    parts.push(
      `<ul class="connections">${shown.map((connection) => connectionCard({ basePath, companyId: company.id, companyName: company.name, connection, nonce: params.nonce, token: params.token, headingLevel: 3, accountProblem: problemOf(connection) })).join("")}</ul>`,
    );
  } else {
    const action = `${companyPath}/connect`;
    const problem = params.choiceProblem
      ? `<p class="problem" id="choice-problem">${esc(params.choiceProblem)}</p>`
      : "";
    const describedBy = params.choiceProblem ? ` aria-describedby="choice-problem"` : "";
    const choices = params.platforms
      .map(
        (p) =>
          `<div class="choice"><input type="radio" id="platform-${p.key}" name="platformKey" value="${p.key}" required>` +
          `<label for="platform-${p.key}">${esc(p.name)}</label></div>`,
      )
      .join("");
    parts.push(`<h2>Choose your platform</h2>`);
    parts.push(
      `<form method="post" action="${esc(action)}" novalidate>${hiddenFields(params.nonce, params.token)}` +
        `<fieldset${describedBy}><legend>Which platform holds ${name}'s books?</legend>${problem}${choices}</fieldset>` +
        `<button type="submit">Connect</button></form>`,
    );
  }
  parts.push(SIMULATION_NOTE);
  return page({ title: `${title} — Service sandbox`, body: parts.join("") });
}

/** A page that says one thing (not found, expired, refused), with a way back where there is one. */
export function messageLinkPage(params: { heading: string; paragraphs: readonly string[]; back?: { href: string; text: string } }): string {
  const back = params.back ? `<p><a href="${esc(params.back.href)}">${esc(params.back.text)}</a></p>` : "";
  return page({
    title: `${params.heading} — Service sandbox`,
    body: `${TAG}<h1>${esc(params.heading)}</h1>${params.paragraphs.map((p) => `<p>${esc(p)}</p>`).join("")}${back}`,
  });
}

/**
 * The platform's refusal of an authorize whose redirect URI is not registered on the OAuth app
 * (simulators/redirect-check.ts): its words as an alert, the redirect URI sent and the app's client
 * id, and who must fix it. No Connect button: the way back is the company's page, whose Connect
 * works once the app's owner has added the URI.
 */
export function redirectRefusedLinkPage(params: {
  platformName: string;
  words: string;
  redirectUri: string;
  appClientId: string;
  back: { href: string; text: string };
}): string {
  const platform = esc(params.platformName);
  const heading = `${params.platformName} refused the connection`;
  return page({
    title: `${heading} — Service sandbox`,
    body:
      `${TAG}<h1>${esc(heading)}</h1>` +
      `<div class="problem" role="alert"><p><strong>${platform} said:</strong> ${esc(params.words)}</p></div>` +
      `<dl class="facts"><dt>Redirect URI sent</dt><dd>${esc(params.redirectUri)}</dd>` +
      `<dt>OAuth app (client ID)</dt><dd>${esc(params.appClientId)}</dd></dl>` +
      `<p>Nothing was connected. The owner of that app must add this redirect URI to the app in ${platform}'s developer console; then open the page again and press Connect.</p>` +
      `<p><a href="${esc(params.back.href)}">${esc(params.back.text)}</a></p>` +
      SIMULATION_NOTE,
  });
}
