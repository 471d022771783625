import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { accountsQuery, invitationsQuery, revokeInvitation, ROLE_NAMES, type Invitation } from './api';
import { day, moment, nameOf, words } from './people-text';
import { queryKeys } from '../../api/keys';

/** The invitations not yet accepted, each revocable. */
export function InvitationsSection() {
  const queryClient = useQueryClient();
  const invitations = useQuery(invitationsQuery);
  const accounts = useQuery(accountsQuery);
  const [error, setError] = useState<{ id: string; message: string }>();
  const revoke = useMutation({
    mutationFn: (inv: Invitation) => revokeInvitation(inv.id),
    onMutate: () => setError(undefined),
    onError: (e, inv) => setError({ id: inv.id, message: words(e) }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations() }),
  });
  const inviter = (id: number) => {
    const a = accounts.data?.find((u) => u.id === id);
    return a ? nameOf(a) : `user ${id}`;
  };
  return (
    <section className="panel" aria-labelledby="invitations">
      <h2 id="invitations" className="panel-title">
        Pending invitations
      </h2>
      {invitations.isPending ? (
        <Loading label="Loading the pending invitations…" />
      ) : invitations.isError ? (
        <ErrorState
          title="The invitations could not be loaded."
          error={invitations.error}
          onRetry={() => invitations.refetch()}
        />
      ) : invitations.data.length === 0 ? (
        <EmptyState title="No pending invitations.">
          <p className="muted">Invitations that were accepted, revoked or have expired are not listed.</p>
        </EmptyState>
      ) : (
        <ul className="people-list" aria-label="Pending invitations">
          {invitations.data.map((inv) => (
            <li key={inv.id} className="people-row">
              <div className="people-who">
                <span className="people-name">{inv.email}</span>
                <span className="muted people-meta">
                  {ROLE_NAMES[inv.role]} ·{' '}
                  {inv.allProjects
                    ? 'all projects'
                    : inv.projects.length === 0
                      ? 'no projects'
                      : inv.projects.map((p) => p.code).join(', ')}{' '}
                  · invited by {inviter(inv.invitedBy)} on {day(inv.createdAt)} · expires{' '}
                  {moment(inv.expiresAt)}
                </span>
              </div>
              <div className="people-actions">
                <Button
                  aria-label={`Revoke the invitation of ${inv.email}`}
                  isPending={revoke.isPending && revoke.variables?.id === inv.id}
                  onPress={() => revoke.mutate(inv)}
                >
                  Revoke
                </Button>
              </div>
              {error?.id === inv.id && (
                <p className="field-error people-row-error" role="alert">
                  {error.message}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
