import { cn } from "./cn";

export type ProgressBarProps = {
  /** Accessible name, e.g. "Steps done". */
  label: string;
  /** Omit for work whose length is unknown (an indeterminate bar). */
  value?: number;
  max?: number;
  /** Read out instead of the raw number, e.g. "3 of 6 steps". */
  valueText?: string;
  size?: "sm" | "md";
  className?: string;
};

/** A determinate or indeterminate progress bar with a proper progressbar role. */
export function ProgressBar({ label, value, max = 100, valueText, size = "md", className }: ProgressBarProps) {
  const determinate = typeof value === "number";
  const percent = determinate ? Math.max(0, Math.min(100, (value / max) * 100)) : 0;
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={determinate ? 0 : undefined}
      aria-valuemax={determinate ? max : undefined}
      aria-valuenow={determinate ? value : undefined}
      aria-valuetext={valueText}
      className={cn("relative overflow-hidden rounded-full bg-slate-200", size === "sm" ? "h-1.5" : "h-2", className)}
    >
      {determinate ? (
        <div className="h-full rounded-full bg-indigo-600 transition-[width]" style={{ width: `${percent}%` }} />
      ) : (
        <div className="absolute inset-y-0 w-1/3 animate-[ferry-indeterminate_1.2s_ease-in-out_infinite] rounded-full bg-indigo-600" />
      )}
    </div>
  );
}
