import type { InputHTMLAttributes, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { cn } from "./cn";

const control = cn(
  "block w-full rounded-md border bg-white px-3 text-sm text-slate-900 shadow-xs placeholder:text-slate-400",
  "focus:outline-2 focus:outline-offset-0 focus:outline-indigo-600 disabled:bg-slate-50 disabled:text-slate-500",
  "aria-[invalid=true]:border-red-500 aria-[invalid=true]:focus:outline-red-600",
);

export function Input({ className, ...rest }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cn(control, "h-10 border-slate-300", className)} {...rest} />;
}

export function Textarea({ className, rows = 3, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea rows={rows} className={cn(control, "border-slate-300 py-2", className)} {...rest} />;
}

export function Select({ className, children, ...rest }: SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <select className={cn(control, "h-10 border-slate-300 pr-8", className)} {...rest}>
      {children}
    </select>
  );
}
