import { Link, Outlet } from '@tanstack/react-router';
import { RequireRole } from '../../routing/RequireRole';
import { MyWorkLink } from '../../features/my-work';
import { ProjectSwitcher } from './ProjectSwitcher';
import { UserMenu } from './UserMenu';

/** The frame of every signed-in page: a skip link, the header, the page (behind its role guard). */
export function AppShell() {
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Casebook, all projects">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Casebook</span>
        </Link>
        <span className="topbar-divider" aria-hidden="true" />
        <ProjectSwitcher />
        <MyWorkLink />
        <div className="topbar-spacer" />
        <UserMenu />
      </header>
      <main id="main" className="main" tabIndex={-1}>
        {/* A page that needs a role says so in its route (staticData.access): one guard for all of them. */}
        <RequireRole>
          <Outlet />
        </RequireRole>
      </main>
    </div>
  );
}
