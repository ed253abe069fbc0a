"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { activeHref } from "@/app/_lib/nav";
import { cn } from "./ui/cn";
import { LinkPending } from "./ui/link-pending";

export type NavItem = { href: string; label: string };

/** The main navigation; the current section is marked with aria-current. */
export function NavLinks({ items, label }: { items: readonly NavItem[]; label: string }) {
  const pathname = usePathname();
  const active = activeHref(
    items.map((i) => i.href),
    pathname,
  );
  return (
    <nav aria-label={label}>
      <ul className="flex flex-wrap items-center gap-1">
        {items.map((item) => {
          const current = item.href === active;
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={current ? "page" : undefined}
                className={cn(
                  "block rounded-md px-3 py-1.5 text-sm font-medium",
                  current ? "bg-indigo-50 text-indigo-800" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900",
                )}
              >
                {item.label}
                <LinkPending />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
