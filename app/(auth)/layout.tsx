import type { ReactNode } from "react";

/** The signed-out pages (sign-in, invitation): one centred column under Ferry's mark. */
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-4 text-center">
          <span aria-hidden="true" className="inline-flex size-10 items-center justify-center rounded-lg bg-indigo-600 text-lg font-semibold text-white">
            F
          </span>
        </div>
        {children}
      </div>
    </main>
  );
}
