"use client";
import type { ButtonHTMLAttributes } from "react";
import { buttonClasses, type ButtonSize, type ButtonVariant } from "./button-classes";
import { Spinner } from "./spinner";
import { useHydrated } from "./use-hydrated";

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Shows a spinner and blocks repeat clicks while work is under way. */
  pending?: boolean;
};

export function Button({ variant, size, pending = false, className, children, disabled, type = "button", ...rest }: ButtonProps) {
  const hydrated = useHydrated();
  return (
    <button
      type={type}
      className={buttonClasses({ variant, size, className })}
      disabled={disabled || pending || !hydrated}
      aria-busy={pending || undefined}
      {...rest}
    >
      {pending ? <Spinner className="size-4" /> : null}
      {children}
    </button>
  );
}
