import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { sentence } from '../../../lib/useForm';
import { isAdmin, type Me } from '../../../session/session';
import { reportSharesQuery, revokeReportShare, type Project, type ReportShare } from '../api';
import { formatCount, formatDate, formatFullDateTime } from '../../../lib/format';

function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatFullDateTime(iso)}>
      {formatDate(iso)}
    </time>
  );
}

/** What a link opens, in words, with a link to the same report's page (for the signed-in). */
function Target({ code, share }: { code: string; share: ReportShare }) {
  const { runId, planId, milestoneId, since } = share.params;
  if (share.report === 'run' && runId)
    return (
      <>
        Run report:{' '}
        <Link
          to="/project/$code/run/$runId/report"
          params={{ code, runId: String(runId) }}
          search={since ? { since } : {}}
        >
          run {runId}
        </Link>
        {since && <span className="muted"> compared with run {since}</span>}
      </>
    );
  if (share.report === 'plan' && planId)
    return (
      <>
        Plan report:{' '}
        <Link to="/project/$code/plan/$planId/report" params={{ code, planId: String(planId) }}>
          plan {planId}
        </Link>
      </>
    );
  if (share.report === 'milestone' && milestoneId)
    return (
      <>
        Milestone report:{' '}
        <Link
          to="/project/$code/milestone/$milestoneId/report"
          params={{ code, milestoneId: String(milestoneId) }}
        >
          milestone {milestoneId}
        </Link>
      </>
    );
  return (
    <>
      <Link to="/project/$code" params={{ code }}>
        Dashboard
      </Link>{' '}
      of {code}
    </>
  );
}

/** The project's shared report links: who made each, until when it opens, and Revoke for its maker or an admin. */
export function SharedLinksSection({ project, me }: { project: Project; me: Me }) {
  const code = project.code;
  const shares = useQuery(reportSharesQuery(code));
  const [revoking, setRevoking] = useState<ReportShare>();
  if (shares.isPending) return <Loading label="Loading the shared links…" />;
  if (shares.isError)
    return (
      <ErrorState
        title="The shared links could not be loaded."
        error={shares.error}
        onRetry={() => shares.refetch()}
      />
    );

  // Revoked and expired links never open again, so they sit apart. A link whose creator lost access stays
  // here, marked: it opens again if they get the access back, unless it is revoked.
  const closed = shares.data.filter((s) => s.inactiveReason === 'revoked' || s.inactiveReason === 'expired');
  const open = shares.data.filter((s) => !closed.includes(s));
  const mayRevoke = (s: ReportShare) =>
    !project.archivedAt && (s.createdBy?.id === me.id || isAdmin(me.role));

  return (
    <>
      <p className="muted settings-lede">
        Each link opens one report, read-only, to anyone who has it, without signing in, until it expires or
        is revoked, and only while the person who made it keeps their access to the project.
      </p>
      {open.length === 0 ? (
        <EmptyState title="No shared links open.">
          <p>
            To share a report with someone without an account, press <strong>Share</strong> on the report: on
            a run’s, a plan’s or a milestone’s report, or on the dashboard.
          </p>
        </EmptyState>
      ) : (
        <ul className="share-list" aria-label="Open shared links">
          {open.map((s) => (
            <li key={s.id} className="share-row">
              <div className="share-what">
                <p>
                  <Target code={code} share={s} />
                </p>
                <p className="muted">
                  {s.createdBy ? `By ${s.createdBy.name}` : 'By a removed account'},{' '}
                  <When iso={s.createdAt} /> · expires <When iso={s.expiresAt} />
                </p>
                <CreatorLoss share={s} />
              </div>
              {mayRevoke(s) && (
                <Button aria-label={`Revoke the link to ${describe(s)}`} onPress={() => setRevoking(s)}>
                  Revoke…
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {closed.length > 0 && (
        <details className="share-closed">
          <summary>Expired and revoked links ({formatCount(closed.length)})</summary>
          <ul className="share-list">
            {closed.map((s) => (
              <li key={s.id} className="share-row">
                <div className="share-what">
                  <p>
                    <Target code={code} share={s} />
                  </p>
                  <p className="muted">
                    {s.createdBy ? `By ${s.createdBy.name}` : 'By a removed account'},{' '}
                    <When iso={s.createdAt} /> ·{' '}
                    {s.revoked ? (
                      'revoked'
                    ) : (
                      <>
                        expired <When iso={s.expiresAt} />
                      </>
                    )}
                  </p>
                </div>
              </li>
            ))}
          </ul>
        </details>
      )}
      {revoking && <RevokeDialog code={code} share={revoking} onClose={() => setRevoking(undefined)} />}
    </>
  );
}

const LOSS: Partial<Record<NonNullable<ReportShare['inactiveReason']>, string>> = {
  creatorDeactivated: 'Inactive: its creator’s account is deactivated',
  creatorNoAccess: 'Inactive: its creator no longer has access',
};

/** Marks a link that does not open because its creator lost access (the answer never tells its reader why). */
function CreatorLoss({ share }: { share: ReportShare }) {
  const mark = share.inactiveReason && LOSS[share.inactiveReason];
  if (!mark) return null;
  return (
    <>
      <p className="share-inactive">
        <span className="badge badge-inactive">{mark}</span>
      </p>
      <p className="muted">It opens again if they get their access back; revoke it to end it for good.</p>
    </>
  );
}

const describe = (s: ReportShare) =>
  s.report === 'run'
    ? `run ${s.params.runId}`
    : s.report === 'plan'
      ? `plan ${s.params.planId}`
      : s.report === 'milestone'
        ? `milestone ${s.params.milestoneId}`
        : 'the dashboard';

function RevokeDialog({ code, share, onClose }: { code: string; share: ReportShare; onClose: () => void }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => revokeReportShare(code, share.id),
    onSuccess: onClose,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.reportShares(code) }),
  });
  return (
    <ConfirmDialog
      title="Revoke this link?"
      onClose={onClose}
      confirmLabel="Revoke link"
      onConfirm={() => revoke.mutate()}
      isPending={revoke.isPending}
      error={revoke.isError ? sentence(revoke.error.message) : undefined}
    >
      <p>
        The link to the report of {describe(share)} stops working at once, for everyone who has it. A new link
        can be made with Share on the report.
      </p>
    </ConfirmDialog>
  );
}
