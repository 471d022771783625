/** What a shared link opens: one report (extensions.md §6, POST /project/{p}/report/share). */
export interface ShareButtonProps {
  project: string;
  report: 'run' | 'plan' | 'milestone' | 'dashboard';
  params: { runId?: number; planId?: number; milestoneId?: number; since?: number };
}

/**
 * "Share" on a report page: creates an expiring, read-only link to the report. The dialog is being built
 * (issue 26); until then the button is not shown.
 */
export function ShareButton(props: ShareButtonProps) {
  void props;
  return null;
}
