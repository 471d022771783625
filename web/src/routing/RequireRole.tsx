import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useMatches } from '@tanstack/react-router';
import { Loading } from '../components/Status';
import { useDocumentTitle } from '../components/useDocumentTitle';
import { hasRole, meQuery, ROLE_NAMES, type Role } from '../session/session';
import './require-role.css';

/**
 * The one guard of a page that needs a role: a route names it in its `staticData.access`, and the signed-in frame
 * (app/shell/AppShell.tsx) wraps every page in <RequireRole>. A lower role typed the address in (the bars never
 * show it the tab): it reads what the page is for and whom to ask instead of the page. The service refuses the
 * page's requests to that role anyway (D3); this is the page saying so in words.
 */
export interface Access {
  role: Role;
  /** The page's name: its heading and the tab's title. */
  title: string;
  /** What the role may not do, in one sentence: "You need the admin role to …". */
  denied: string;
  /** What the page is for and whom to ask. */
  why?: ReactNode;
}

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    access?: Access;
  }
}

/** The deepest matched route's access rule: the page's, or its layout's. */
function useAccess(): Access | undefined {
  return useMatches({ select: (ms) => ms.findLast((m) => m.staticData.access)?.staticData.access });
}

export function RequireRole({ children }: { children: ReactNode }) {
  const access = useAccess();
  const me = useQuery({ ...meQuery, enabled: access !== undefined }).data;
  if (!access) return children;
  if (!me) return <Loading label="Loading your account…" />;
  if (hasRole(me.role, access.role)) return children;
  return <Denied access={access} role={me.role} />;
}

function Denied({ access, role }: { access: Access; role: Role }) {
  useDocumentTitle(access.title);
  return (
    <div className="page page-narrow">
      <h1 className="page-title">{access.title}</h1>
      <div className="panel role-denied">
        <p className="status-title">{access.denied}</p>
        <p>
          Your role is “{ROLE_NAMES[role]}”. {access.why}
        </p>
        <p>
          <Link to="/">Go to your projects</Link>
        </p>
      </div>
    </div>
  );
}
