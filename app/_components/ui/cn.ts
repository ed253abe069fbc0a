/**
 * Joins class names, dropping falsy ones, and lets a later Tailwind class win over an earlier one
 * of the same utility (a caller's `p-0` over a card's `p-5`). Tailwind 4 orders utilities in the
 * stylesheet, not by their order in the class string, so plain joining cannot override.
 */
import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs));
}
