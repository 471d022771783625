import { Link, Outlet } from '@tanstack/react-router';
import { ProjectSwitcher } from './ProjectSwitcher';
import { UserMenu } from './UserMenu';

/** The frame of every signed-in page: a skip link, the header, the page. */
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
        <div className="topbar-spacer" />
        <UserMenu />
      </header>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
