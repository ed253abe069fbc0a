import type { ReactNode } from "react";
import { cn } from "./cn";

export type CardProps = {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  /** Heading level of the title, so each page keeps one outline. */
  level?: 2 | 3;
  className?: string;
  bodyClassName?: string;
  children: ReactNode;
  "aria-label"?: string;
};

export function Card({ title, description, actions, level = 2, className, bodyClassName, children, ...rest }: CardProps) {
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <section className={cn("rounded-lg border border-slate-200 bg-white shadow-xs", className)} aria-label={rest["aria-label"]}>
      {title || actions ? (
        <div className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-200 px-5 py-4">
          <div>
            {title ? <Heading className="text-base font-semibold text-slate-900">{title}</Heading> : null}
            {description ? <p className="mt-1 text-sm text-slate-600">{description}</p> : null}
          </div>
          {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
        </div>
      ) : null}
      <div className={cn("px-5 py-4", bodyClassName)}>{children}</div>
    </section>
  );
}
