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
  if (s < DAY_SECONDS) {
    const m = Math.round((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ""}`;
  }
  const h = Math.round((s % DAY_SECONDS) / 3600);
  return `${Math.floor(s / DAY_SECONDS)} d${h ? ` ${h} h` : ""}`;
}
