import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "./_trpc/react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Ferry", template: "%s · Ferry" },
  description: "Managed OAuth token migrations into the data-integration service.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en-GB">
      <body className="min-h-screen font-sans">
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
