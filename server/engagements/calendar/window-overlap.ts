/**
 * Which migration windows on one service target cannot all fit, pure (issue 30, item 3).
 *
 * Each window is agreed time in which its migration must make its estimated requests (the
 * estimate step 2 showed when it was proposed). Windows on the same target share its limits: the
 * per-address rate limit and the daily quota. Whether a set of windows fits is a scheduling
 * question with release times and deadlines on one shared resource, and the classic answer holds:
 * they fit exactly when, for every span [a, b] from some window's start to some window's end, the
 * requests of the windows lying wholly inside it are no more than the target allows in it. So
 * every such span is checked:
 * - the rate: requests ≤ requests per second × the span's seconds;
 * - the quota: the days of quota those companies need (the estimate's own rule, quotaDays) ≤ the
 *   UTC days the span touches.
 * Only spans with windows of two or more engagements count (a window shorter than its own estimate
 * is step 2's warning, not an overlap), and a span that one window alone overfills is left to that
 * warning. An engagement's proposed windows are alternatives: it counts once in a span however
 * many of them lie inside.
 */
import { quotaDays, requestsPerSecondOf, type ServiceLimits } from "@/server/intake";

export type OverlapWindow = {
  id: string;
  engagementId: string;
  /** The service target its migration calls (windows meet only on the same one). */
  targetKey: string;
  startsAt: Date;
  endsAt: Date;
  /** Estimated requests and companies; null when the window predates the recorded estimate (not checked). */
  requests: number | null;
  companies: number | null;
};

export type OverlapFlag = {
  /** Which limit the span overfills. */
  limit: "rate" | "quota";
  from: Date;
  to: Date;
  /** The other engagements' windows inside the span. */
  withWindowIds: string[];
  /** Requests the windows inside the span need, and what the limit allows in it. */
  needed: number;
  allowed: number;
  /** For the quota: days of quota needed and UTC days the span touches. */
  quotaDaysNeeded: number | null;
  daysSpanned: number | null;
  /** How far over, needed ÷ allowed (days ÷ days for the quota): the worst span is kept. */
  ratio: number;
};

const DAY = 86_400_000;

/** UTC days [a, b) touches. */
export function utcDaysSpanned(a: Date, b: Date): number {
  if (b.getTime() <= a.getTime()) return 0;
  return Math.floor((b.getTime() - 1) / DAY) - Math.floor(a.getTime() / DAY) + 1;
}

type Demand = { requests: number; companies: number };

/** Whether a demand fits [a, b] under the limits, and by how much it does not. */
function overfill(limits: ServiceLimits, a: number, b: number, d: Demand): Omit<OverlapFlag, "from" | "to" | "withWindowIds"> | null {
  const allowedByRate = Math.floor(requestsPerSecondOf(limits) * ((b - a) / 1000));
  const rate =
    d.requests > allowedByRate
      ? { limit: "rate" as const, needed: d.requests, allowed: allowedByRate, quotaDaysNeeded: null, daysSpanned: null, ratio: d.requests / Math.max(1, allowedByRate) }
      : null;
  const spanned = utcDaysSpanned(new Date(a), new Date(b));
  const days = d.companies > 0 ? quotaDays({ companies: d.companies, calls: d.requests / d.companies, limits, connected: 0 }) : null;
  const quota =
    days !== null && days > spanned && limits.target === "service"
      ? {
          limit: "quota" as const,
          needed: d.requests,
          allowed: limits.dailyQuota.base * spanned,
          quotaDaysNeeded: days,
          daysSpanned: spanned,
          ratio: days / Math.max(1, spanned),
        }
      : null;
  if (!rate) return quota;
  if (!quota) return rate;
  return rate.ratio >= quota.ratio ? rate : quota;
}

/** The flags of one target's windows. */
function flagsOnTarget(limits: ServiceLimits, windows: OverlapWindow[], flags: Map<string, OverlapFlag>): void {
  const known = windows.filter((w) => w.requests !== null && w.companies !== null && w.endsAt.getTime() > w.startsAt.getTime());
  if (new Set(known.map((w) => w.engagementId)).size < 2) return;
  const alone = new Map(known.map((w) => [w.id, overfill(limits, w.startsAt.getTime(), w.endsAt.getTime(), { requests: w.requests!, companies: w.companies! }) !== null]));
  // Windows that meet in time, in clusters: a span that fails lies within one cluster.
  const sorted = [...known].sort((x, y) => x.startsAt.getTime() - y.startsAt.getTime());
  let cluster: OverlapWindow[] = [];
  let clusterEnd = -Infinity;
  const check = () => {
    if (new Set(cluster.map((w) => w.engagementId)).size >= 2) checkCluster(limits, cluster, alone, flags);
  };
  for (const w of sorted) {
    if (w.startsAt.getTime() >= clusterEnd) {
      check();
      cluster = [];
      clusterEnd = -Infinity;
    }
    cluster.push(w);
    clusterEnd = Math.max(clusterEnd, w.endsAt.getTime());
  }
  check();
}

function checkCluster(limits: ServiceLimits, cluster: OverlapWindow[], alone: Map<string, boolean>, flags: Map<string, OverlapFlag>): void {
  const starts = [...new Set(cluster.map((w) => w.startsAt.getTime()))].sort((x, y) => x - y);
  const byEnd = [...cluster].sort((x, y) => x.endsAt.getTime() - y.endsAt.getTime());
  for (const a of starts) {
    // Windows starting at or after a, taken in order of their end: each end b closes a span [a, b].
    const perEngagement = new Map<string, Demand>();
    const inside: OverlapWindow[] = [];
    let demand: Demand = { requests: 0, companies: 0 };
    let overfilledAlone = false;
    for (const w of byEnd) {
      if (w.startsAt.getTime() < a) continue;
      inside.push(w);
      overfilledAlone ||= alone.get(w.id) === true;
      if (!perEngagement.has(w.engagementId)) {
        const d = { requests: w.requests!, companies: w.companies! };
        perEngagement.set(w.engagementId, d);
        demand = { requests: demand.requests + d.requests, companies: demand.companies + d.companies };
      }
      if (perEngagement.size < 2 || overfilledAlone) continue;
      const b = w.endsAt.getTime();
      const over = overfill(limits, a, b, demand);
      if (!over) continue;
      for (const x of inside) {
        const previous = flags.get(x.id);
        if (previous && previous.ratio >= over.ratio) continue;
        flags.set(x.id, {
          ...over,
          from: new Date(a),
          to: new Date(b),
          withWindowIds: inside.filter((y) => y.engagementId !== x.engagementId).map((y) => y.id),
        });
      }
    }
  }
}

/**
 * Each window that cannot fit with the others on its target, with the worst span it is part of.
 * `limitsOf` gives each target's limits (the same rule the estimate uses).
 */
export function findOverlaps(windows: OverlapWindow[], limitsOf: (targetKey: string) => ServiceLimits): Map<string, OverlapFlag> {
  const flags = new Map<string, OverlapFlag>();
  const byTarget = new Map<string, OverlapWindow[]>();
  for (const w of windows) {
    const list = byTarget.get(w.targetKey);
    if (list) list.push(w);
    else byTarget.set(w.targetKey, [w]);
  }
  for (const [key, list] of byTarget) flagsOnTarget(limitsOf(key), list, flags);
  return flags;
}

/**
 * The flags a proposal would raise: each candidate window of `engagementId` checked against the
 * other engagements' windows on its target (the candidates are alternatives, each checked alone).
 */
export function overlapsOfCandidates(
  candidates: { startsAt: Date; endsAt: Date }[],
  candidate: Omit<OverlapWindow, "id" | "startsAt" | "endsAt">,
  others: OverlapWindow[],
  limits: ServiceLimits,
): (OverlapFlag | null)[] {
  const rivals = others.filter((w) => w.targetKey === candidate.targetKey && w.engagementId !== candidate.engagementId);
  return candidates.map((c, i) => {
    const id = `candidate-${i}`;
    const flags = findOverlaps([...rivals, { ...candidate, ...c, id }], () => limits);
    return flags.get(id) ?? null;
  });
}
