/**
 * The simulated platforms' developer console pages (developer-routes.ts): an OAuth app's page with
 * its registered redirect URIs, a Remove button for each and a form to add one. Same look and the
 * same rules as the Link pages (link-pages.ts): no scripts, every value escaped.
 */
import { esc, page } from "../link/link-pages";
import { MAX_REDIRECT_URI_LENGTH, MAX_REDIRECT_URIS } from "../domain/redirect-uris";

/** What a console page says after a change (the `?notice=` of its address). */
export const CONSOLE_NOTICE_KEYS = ["added", "removed", "not-registered"] as const;
export type ConsoleNotice = (typeof CONSOLE_NOTICE_KEYS)[number];
export const CONSOLE_NOTICES: Readonly<Record<ConsoleNotice, string>> = {
  added: "Added. The redirect URI is registered: authorizations that send it are accepted from now on.",
  removed: "Removed. Authorizations that send that redirect URI are refused from now on.",
  "not-registered": "That redirect URI was not registered on the app, so nothing changed.",
};

function tag(platformName: string): string {
  return `<p class="tag">${esc(platformName)} developer console · Service sandbox</p>`;
}

const SIMULATION_NOTE =
  `<p class="note">This is the service sandbox's simulation of the platform's developer console, where the owner of an ` +
  `OAuth app manages it. No real platform is contacted.</p>`;

function nonceField(nonce: string): string {
  return `<input type="hidden" name="nonce" value="${esc(nonce)}">`;
}

function uriList(params: { uris: readonly string[]; removeAction: string; nonce: string; platformName: string }): string {
  if (params.uris.length === 0) {
    return `<p>No redirect URIs are registered: ${esc(params.platformName)} refuses every authorization with this app.</p>`;
  }
  const items = params.uris.map(
    (uri) =>
      `<li class="card"><code>${esc(uri)}</code>` +
      `<form method="post" action="${esc(params.removeAction)}">${nonceField(params.nonce)}<input type="hidden" name="uri" value="${esc(uri)}">` +
      `<button type="submit" aria-label="Remove ${esc(uri)}">Remove</button></form></li>`,
  );
  return `<ul class="uris" aria-labelledby="uris-heading">${items.join("")}</ul>`;
}

/** The "Add a redirect URI" form, with a refused value and its problem shown at the field. */
function addForm(params: { action: string; nonce: string; value: string; problem: string | null; full: boolean }): string {
  const problem = params.problem ? `<p class="problem" id="uri-problem" role="alert">${esc(params.problem)}</p>` : "";
  const describedBy = params.problem ? "uri-hint uri-problem" : "uri-hint";
  const invalid = params.problem ? ` aria-invalid="true"` : "";
  const full = params.full ? ` The app has ${MAX_REDIRECT_URIS}, the most it can have: remove one first.` : "";
  return (
    `<form method="post" action="${esc(params.action)}" novalidate>${nonceField(params.nonce)}<div class="field">` +
    `<label for="uri">Redirect URI</label>` +
    `<p class="hint" id="uri-hint">An absolute URL starting with https:// (http:// only for localhost and 127.0.0.1), without a fragment, ` +
    `at most ${MAX_REDIRECT_URI_LENGTH.toLocaleString("en-GB")} characters. It must match what is sent exactly.${full}</p>${problem}` +
    `<input type="url" id="uri" name="uri" value="${esc(params.value)}" aria-describedby="${describedBy}"${invalid} autocomplete="off" spellcheck="false" required>` +
    `</div><button type="submit">Add redirect URI</button></form>`
  );
}

/** An OAuth app's page: its name and client id, its redirect URIs, and the form to add one. */
export function oauthAppConsolePage(params: {
  platformName: string;
  app: { name: string; appClientId: string; redirectUris: readonly string[] };
  /** The app page's path (its forms post below it). */
  appPath: string;
  nonce: string;
  notice: ConsoleNotice | null;
  /** A refused value of the add form and why. */
  refused?: { value: string; problem: string } | null;
}): string {
  const { app, platformName } = params;
  const notice = params.notice ? `<section class="done" role="status"><p>${esc(CONSOLE_NOTICES[params.notice])}</p></section>` : "";
  return page({
    title: `${app.name} — ${platformName} developer console — Service sandbox`,
    body:
      `${tag(platformName)}<h1>${esc(app.name)}</h1>${notice}` +
      `<dl class="facts"><dt>Platform</dt><dd>${esc(platformName)}</dd><dt>Client ID</dt><dd>${esc(app.appClientId)}</dd></dl>` +
      `<h2 id="uris-heading">Redirect URIs</h2>` +
      `<p>${esc(platformName)} sends an authorization with this app only to a redirect URI listed here, compared character for character.</p>` +
      uriList({ uris: app.redirectUris, removeAction: `${params.appPath}/redirect-uris/remove`, nonce: params.nonce, platformName }) +
      `<h2>Add a redirect URI</h2>` +
      addForm({
        action: `${params.appPath}/redirect-uris`,
        nonce: params.nonce,
        value: params.refused?.value ?? "",
        problem: params.refused?.problem ?? null,
        full: app.redirectUris.length >= MAX_REDIRECT_URIS,
      }) +
      SIMULATION_NOTE,
  });
}

/** A console page that says one thing (no such app, expired form, not allowed). */
export function consoleMessagePage(params: { platformName: string | null; heading: string; paragraphs: readonly string[]; back?: { href: string; text: string } }): string {
  const back = params.back ? `<p><a href="${esc(params.back.href)}">${esc(params.back.text)}</a></p>` : "";
  const tagLine = params.platformName ? tag(params.platformName) : `<p class="tag">Developer console · Service sandbox</p>`;
  return page({
    title: `${params.heading} — Service sandbox`,
    body: `${tagLine}<h1>${esc(params.heading)}</h1>${params.paragraphs.map((p) => `<p>${esc(p)}</p>`).join("")}${back}`,
  });
}
