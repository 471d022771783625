import type { ReactNode } from 'react';
import { Link } from '@tanstack/react-router';

/**
 * The frame of a report page behind sign-in: the breadcrumb to where the report belongs, its title and its
 * actions (CSV, Share), which print leaves out.
 */
export function ReportPageFrame({
  project,
  crumbs,
  title,
  subtitle,
  actions,
  children,
}: {
  project: string;
  crumbs: ReactNode;
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="page report-page">
      <nav aria-label="Breadcrumb" className="breadcrumb no-print">
        <Link to="/">Projects</Link>
        <span aria-hidden="true">/</span>
        <Link to="/project/$code" params={{ code: project }}>
          {project}
        </Link>
        <span aria-hidden="true">/</span>
        {crumbs}
      </nav>
      <div className="page-header report-header">
        <div>
          <h1 className="page-title">{title}</h1>
          {subtitle && <p className="page-subtitle">{subtitle}</p>}
        </div>
        {actions && <div className="report-actions no-print">{actions}</div>}
      </div>
      {children}
    </div>
  );
}

/**
 * A run's title as a link to its report. A plain link until the run report's route is in this router (issue
 * 26 builds it beside these pages); the address is the one it answers.
 */
export function runReportLink(project: string) {
  return (run: { id: number; title: string }) => (
    <a href={`/project/${project}/run/${run.id}/report`}>{run.title}</a>
  );
}
