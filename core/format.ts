/** Numbers and durations in words, the same on every screen, mail and report. */

const DAY_SECONDS = 86_400;

/**
 * A duration in words, in whole units, two at most: "45 s", "12 min 5 s", "3 h 20 min", "2 d 4 h"
 * (an estimate, a window). `fine` keeps what a call or a test takes below ten seconds: "850 ms",
 * "4.2 s".
 */
export function formatDuration(seconds: number, options: { fine?: boolean } = {}): string {
  if (options.fine && seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (options.fine && seconds < 10) return `${Number(seconds.toFixed(1))} s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  // Rounded to the smaller unit first, so a remainder never rounds up to a whole larger unit
  // ("2 h 60 min", "6 d 24 h").
  if (s < DAY_SECONDS - 30) {
    const minutes = Math.round(s / 60);
    const m = minutes % 60;
    return `${Math.floor(minutes / 60)} h${m ? ` ${m} min` : ""}`;
  }
  const hours = Math.round(s / 3600);
  const h = hours % 24;
  return `${Math.floor(hours / 24)} d${h ? ` ${h} h` : ""}`;
}
