import { describe, expect, it } from "vitest";
import { NEXT_MOVE_ACTIONS } from "@/core/engagements/flow-states";
import { defaultStep, defaultStep6Part, partOfMove, sectionFromParams, sectionHref, sectionKey, STEP_6_PARTS, type EngagementSection } from "./engagement-section";

const at5: EngagementSection = { kind: "step", step: 5 };
const read = (query: string) => sectionFromParams(new URLSearchParams(query), at5);

describe("the engagement page's sections", () => {
  it("opens at the current step, and at step 6 once every step is done", () => {
    expect(defaultStep(1)).toEqual({ kind: "step", step: 1 });
    expect(defaultStep(5)).toEqual({ kind: "step", step: 5 });
    expect(defaultStep(7)).toEqual({ kind: "step", step: 6 });
  });

  it("reads the step, step 6's part or the activity from the URL", () => {
    expect(read("step=3")).toEqual({ kind: "step", step: 3 });
    expect(read("step=6")).toEqual({ kind: "step", step: 6 });
    expect(read("step=6&part=handover")).toEqual({ kind: "step", step: 6, part: "handover" });
    expect(read("tab=activity")).toEqual({ kind: "activity" });
    expect(read("tab=activity&step=2")).toEqual({ kind: "activity" });
  });

  it("falls back to the current step for a link that names no step of the six", () => {
    for (const query of ["", "step=0", "step=7", "step=2.5", "step=abc", "step=", "tab=other", "step=12", "part=handover"]) expect(read(query)).toEqual(at5);
  });

  it("reads a part only for step 6, and only one of its four", () => {
    expect(read("step=3&part=handover")).toEqual({ kind: "step", step: 3 });
    expect(read("step=6&part=elsewhere")).toEqual({ kind: "step", step: 6 });
  });

  it("writes links that read back as the same section, each its own view", () => {
    const sections: EngagementSection[] = [
      { kind: "activity" },
      ...([1, 2, 3, 4, 5, 6] as const).map((step) => ({ kind: "step" as const, step })),
      ...STEP_6_PARTS.map((part) => ({ kind: "step" as const, step: 6 as const, part })),
    ];
    for (const s of sections) expect(sectionFromParams(new URLSearchParams(sectionHref(s).slice(1)), { kind: "step", step: 1 })).toEqual(s);
    expect(new Set(sections.map(sectionKey)).size).toBe(sections.length);
    expect(sectionHref({ kind: "step", step: 6, part: "handover" })).toBe("?step=6&part=handover");
  });
});

describe("step 6's parts", () => {
  it("gives every move of step 6 its part, and none to the moves of steps 1–5", () => {
    for (const action of NEXT_MOVE_ACTIONS) {
      const part = partOfMove(action);
      if (["run_bulk", "send_reconnect_links", "review_supplementary", "produce_report", "acknowledge_report", "look_at_drops"].includes(action)) expect(part).not.toBeNull();
      else expect(part).toBeNull();
    }
  });

  it("opens where the viewer's move is, else where the other side's is, else the report once done, else the run", () => {
    expect(defaultStep6Part({ mine: "acknowledge_report", theirs: null, step6Done: false })).toBe("handover");
    expect(defaultStep6Part({ mine: "review_supplementary", theirs: "send_reconnect_links", step6Done: false })).toBe("fresh-tokens");
    expect(defaultStep6Part({ mine: null, theirs: "acknowledge_report", step6Done: false })).toBe("handover");
    expect(defaultStep6Part({ mine: null, theirs: "send_reconnect_links", step6Done: true })).toBe("reconnections");
    expect(defaultStep6Part({ mine: "run_test", theirs: null, step6Done: false })).toBe("run");
    expect(defaultStep6Part({ mine: null, theirs: null, step6Done: true })).toBe("handover");
    expect(defaultStep6Part({ mine: null, theirs: null, step6Done: false })).toBe("run");
  });
});
