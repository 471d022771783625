import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';

/**
 * Links the dashboard gives when someone is signed in. A shared page renders the same view with `linked` false:
 * its text stays, but nothing points at pages that need a session.
 */
export function CaseLink({
  code,
  seq,
  linked,
  children,
}: {
  code: string;
  seq: number;
  linked: boolean;
  children: ReactNode;
}) {
  if (!linked) return <>{children}</>;
  return (
    <Link to="/project/$code/tcase/$seq" params={{ code, seq: String(seq) }}>
      {children}
    </Link>
  );
}

/**
 * The full list on the reports page. A plain link: that page is another feature's route (issue 26, r3-hub), so its
 * typed route is not known here; the section's anchor picks the list.
 */
export function FullListLink({ code, section, label }: { code: string; section: string; label: string }) {
  return (
    <a href={`/project/${encodeURIComponent(code.toUpperCase())}/reports#${section}`} className="dash-more">
      {label}
    </a>
  );
}

/** "TC-12": a case's seq in the project's code. */
export const caseRef = (code: string, seq: number) => `${code.toUpperCase()}-${seq}`;
