import type { ReactNode } from "react";

export type PageHeaderProps = {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons or links on the right. */
  actions?: ReactNode;
  /** Beside the title but outside the heading (copy buttons, badges), so the heading's name stays clean. */
  titleAside?: ReactNode;
  /** A small line above the title, e.g. a back link. */
  eyebrow?: ReactNode;
  children?: ReactNode;
};

/** The page's one h1, with its summary and main actions. */
export function PageHeader({ title, titleAside, description, actions, eyebrow, children }: PageHeaderProps) {
  return (
    <header className="mb-6 space-y-2">
      {eyebrow ? <div className="text-sm text-slate-600">{eyebrow}</div> : null}
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
            {titleAside}
          </div>
          {description ? <div className="mt-1 text-sm text-slate-600">{description}</div> : null}
        </div>
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
      {children}
    </header>
  );
}
