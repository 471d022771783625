import type { ReactNode } from 'react';
import { Link } from '@tanstack/react-router';

/**
 * The frame of a report page behind sign-in: the breadcrumb to where the report belongs, its title and its
 * actions (CSV, Share), which print leaves out.
 */
export function ReportPageFrame({
  crumbs,
  title,
  subtitle,
  actions,
  children,
}: {
  crumbs: ReactNode;
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="page rep-page">
      {/* The project bar names the project: the trail starts at the page the report belongs to. */}
      <nav aria-label="Breadcrumb" className="breadcrumb no-print">
        {crumbs}
      </nav>
      <div className="page-header rep-header">
        <div>
          <h1 className="page-title">{title}</h1>
          {subtitle && <p className="page-subtitle">{subtitle}</p>}
        </div>
        {actions && <div className="rep-actions no-print">{actions}</div>}
      </div>
      {children}
    </div>
  );
}

/** A run's title as a link to its run report (on the pages behind sign-in; a shared page passes none). */
export function runReportLink(project: string) {
  return (run: { id: number; title: string }) => (
    <Link to="/project/$code/run/$runId/report" params={{ code: project, runId: String(run.id) }}>
      {run.title}
    </Link>
  );
}
