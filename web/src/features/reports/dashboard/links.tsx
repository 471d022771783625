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

/** The full list on the reports page; the section's anchor picks the list. */
export function FullListLink({ code, section, label }: { code: string; section: string; label: string }) {
  return (
    <Link to="/project/$code/reports" params={{ code }} hash={section} className="dash-more">
      {label}
    </Link>
  );
}

/** "TC-12": a case's seq in the project's code. */
export const caseRef = (code: string, seq: number) => `${code.toUpperCase()}-${seq}`;
