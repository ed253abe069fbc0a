/** Thin router for the window calendar across engagements (server/engagements/calendar). */
import { getCalendar } from "@/server/engagements/calendar/get-calendar";
import { calendarFeed, resetCalendarFeed } from "@/server/engagements/calendar/calendar-feed";
import { ZCalendar, ZCalendarFeed, ZCalendarQuery } from "@/core/engagements/calendar-schemas";
import { createTRPCRouter, staffProcedure } from "../trpc";

export const calendarRouter = createTRPCRouter({
  /** A week or month of windows, the viewer's or everyone's, with overlap flags per target. */
  get: staffProcedure
    .input(ZCalendarQuery)
    .output(ZCalendar)
    .query(({ ctx, input }) => getCalendar(ctx.database, { sandbox: ctx.config.sandbox }, ctx.actor, input)),
  /** The viewer's secret .ics feed URL, or null before they make one. */
  feed: staffProcedure.output(ZCalendarFeed).query(({ ctx }) => calendarFeed(ctx.database, ctx.config, ctx.actor)),
  /** A new secret feed URL; the old one stops working. */
  resetFeed: staffProcedure
    .output(ZCalendarFeed.extend({ url: ZCalendarFeed.shape.url.unwrap() }))
    .mutation(({ ctx }) => resetCalendarFeed(ctx.database, ctx.config, ctx.actor)),
});
