import { getDatabase } from "@/db/database";
import { appConfig } from "@/server/config";
import { calendarFeedText } from "@/server/engagements/calendar/calendar-feed";

/**
 * A staff member's migration windows as an .ics feed, for a calendar program to subscribe to. The
 * secret in the URL is the only credential (calendar programs carry no session); an unknown or
 * reset secret answers 404 without saying which.
 */
export async function GET(_req: Request, { params }: { params: Promise<{ feed: string }> }) {
  const { feed } = await params;
  const config = appConfig();
  const text = await calendarFeedText(getDatabase(), { sandbox: config.sandbox, appUrl: config.appUrl }, feed.replace(/\.ics$/, ""));
  const headers = { "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex" };
  if (text === null) return new Response("No calendar feed at this address. Copy the current one from Ferry's calendar page.\n", { status: 404, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" } });
  return new Response(text, { headers: { ...headers, "Content-Type": "text/calendar; charset=utf-8", "Content-Disposition": 'inline; filename="ferry-windows.ics"' } });
}
