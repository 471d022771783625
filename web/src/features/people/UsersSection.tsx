import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../components/Button';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorState, Loading } from '../../components/Status';
import {
  accountsQuery,
  changeRole,
  issuePasswordReset,
  ROLE_NAMES,
  setActive,
  transferOwnership,
  type Account,
  type Role,
} from './api';
import type { OneTimeLink } from './OneTimeLinkDialog';
import { nameOf, words } from './people-text';
import { RoleSelect } from './RoleSelect';
import { queryKeys } from '../../api/keys';

/** Every account: its role (saved with a button), password reset, deactivation and ownership transfer. */
export function UsersSection({
  me,
  onLink,
}: {
  me: { id: number; role: Role };
  onLink: (l: OneTimeLink) => void;
}) {
  const queryClient = useQueryClient();
  const accounts = useQuery(accountsQuery);
  const [confirming, setConfirming] = useState<Account>();
  const [done, setDone] = useState<string>();
  /** A refusal of the service, next to the control it concerns (`role` or the row's `actions`). */
  const [rowError, setRowError] = useState<{ id: number; on: 'role' | 'actions'; message: string }>();
  /**
   * A role chosen but not saved yet: a role changes with its Save button, never on the select's change
   * alone (arrow keys on a closed select change its value on some systems, one request per key press).
   */
  const [drafts, setDrafts] = useState<Record<number, Role>>({});
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.accounts() });
  const start = () => {
    setRowError(undefined);
    setDone(undefined);
  };

  const role = useMutation({
    mutationFn: ({ user, to }: { user: Account; to: Role }) => changeRole(user.id, to),
    onMutate: start,
    onSuccess: (r) => {
      setDrafts(({ [r.user.id]: _saved, ...rest }) => rest);
      setDone(`${nameOf(r.user)} is now ${ROLE_NAMES[r.user.role].toLowerCase()}.`);
    },
    onError: (e, { user }) => setRowError({ id: user.id, on: 'role', message: words(e) }),
    onSettled: refresh,
  });
  const active = useMutation({
    mutationFn: ({ user, to }: { user: Account; to: boolean }) => setActive(user.id, to),
    onMutate: start,
    onSuccess: (r) => {
      setConfirming(undefined);
      setDone(
        r.user.active
          ? `${nameOf(r.user)} is active again and can sign in.`
          : `${nameOf(r.user)} is deactivated: their sessions have ended and their API keys stopped working.`,
      );
    },
    onError: (e, { user, to }) => {
      // A refused deactivation is said in its dialog, beside the button pressed; a refused reactivation in its row.
      if (to) setRowError({ id: user.id, on: 'actions', message: words(e) });
    },
    onSettled: refresh,
  });
  const [handingOver, setHandingOver] = useState<Account>();
  const transfer = useMutation({
    mutationFn: (user: Account) => transferOwnership(user.id),
    onMutate: start,
    onSuccess: (r) => {
      setHandingOver(undefined);
      setDone(`${nameOf(r.user)} is now the owner, and you are an admin.`);
    },
    // No onError: a refusal is said in the dialog, beside the button pressed, not again in the row behind it.
    // The signed-in person's own role changed too.
    onSettled: () =>
      Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: queryKeys.me(), exact: true })]),
  });
  const reset = useMutation({
    mutationFn: (user: Account) => issuePasswordReset(user.id),
    onMutate: start,
    onSuccess: (r) => {
      if (r.link)
        onLink({
          title: `Password reset link for ${nameOf(r.user)}`,
          intro: `No mail is set up on this service, so pass this link on to ${nameOf(r.user)} (${r.user.email}) yourself. It lets them choose a new password; their sessions end when they do.`,
          link: r.link,
          expiresAt: r.expiresAt,
        });
      else setDone(`A password reset link was e-mailed to ${r.user.email}.`);
    },
    onError: (e, user) => setRowError({ id: user.id, on: 'actions', message: words(e) }),
  });

  return (
    <section className="panel" aria-labelledby="users">
      <h2 id="users" className="panel-title">
        Users
      </h2>
      <p role="status" className="people-note">
        {done}
      </p>
      {accounts.isPending ? (
        <Loading label="Loading the users…" />
      ) : accounts.isError ? (
        <ErrorState
          title="The users could not be loaded."
          error={accounts.error}
          onRetry={() => accounts.refetch()}
        />
      ) : (
        <ul className="people-list" aria-label="Users">
          {accounts.data.map((user) => {
            const self = user.id === me.id;
            const fixed = self || user.role === 'owner';
            const error = rowError?.id === user.id ? rowError : undefined;
            return (
              <li key={user.id} className="people-row" aria-label={nameOf(user)}>
                <div className="people-who">
                  <span className="people-name">
                    {nameOf(user)}
                    {self && <span className="muted"> (you)</span>}
                  </span>
                  <span className="muted people-meta">{user.email}</span>
                </div>
                <div className="people-state">
                  <span className={user.active ? 'badge badge-active' : 'badge badge-deactivated'}>
                    {user.active ? 'Active' : 'Deactivated'}
                  </span>
                </div>
                <div className="people-role">
                  {fixed ? (
                    <span className="people-fixed-role">
                      {ROLE_NAMES[user.role]}
                      <span className="muted people-meta">
                        {user.role === 'owner'
                          ? 'Ownership changes only when the owner transfers it.'
                          : 'Another admin or the owner changes your role.'}
                      </span>
                    </span>
                  ) : (
                    <RoleSelect
                      label={`Role of ${nameOf(user)}`}
                      hideLabel
                      value={drafts[user.id] ?? user.role}
                      isDisabled={role.isPending && role.variables?.user.id === user.id}
                      onChange={(to) => setDrafts((d) => ({ ...d, [user.id]: to }))}
                      error={error?.on === 'role' ? error.message : undefined}
                      action={
                        drafts[user.id] !== undefined &&
                        drafts[user.id] !== user.role && (
                          <Button
                            variant="primary"
                            aria-label={`Save role of ${nameOf(user)}`}
                            isPending={role.isPending && role.variables?.user.id === user.id}
                            onPress={() => role.mutate({ user, to: drafts[user.id] })}
                          >
                            Save role
                          </Button>
                        )
                      }
                    />
                  )}
                </div>
                {!fixed && (
                  <div className="people-actions">
                    {me.role === 'owner' && user.active && user.role === 'admin' && (
                      <Button
                        aria-label={`Transfer ownership to ${nameOf(user)}`}
                        onPress={() => {
                          start();
                          // The dialog opens afresh: not with the refusal of an earlier attempt.
                          transfer.reset();
                          setHandingOver(user);
                        }}
                      >
                        Transfer ownership
                      </Button>
                    )}
                    {user.active && (
                      <Button
                        aria-label={`Reset password for ${nameOf(user)}`}
                        isPending={reset.isPending && reset.variables?.id === user.id}
                        onPress={() => reset.mutate(user)}
                      >
                        Reset password
                      </Button>
                    )}
                    {user.active ? (
                      <Button
                        variant="danger"
                        aria-label={`Deactivate ${nameOf(user)}`}
                        onPress={() => {
                          start();
                          // The dialog opens afresh: not with the refusal of an earlier attempt or a reactivation.
                          active.reset();
                          setConfirming(user);
                        }}
                      >
                        Deactivate
                      </Button>
                    ) : (
                      <Button
                        aria-label={`Reactivate ${nameOf(user)}`}
                        isPending={active.isPending && active.variables?.user.id === user.id}
                        onPress={() => active.mutate({ user, to: true })}
                      >
                        Reactivate
                      </Button>
                    )}
                  </div>
                )}
                {error?.on === 'actions' && (
                  <p className="field-error people-row-error" role="alert">
                    {error.message}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Deactivate ${nameOf(confirming)}?`}
          onClose={() => setConfirming(undefined)}
          confirmLabel={`Deactivate ${nameOf(confirming)}`}
          onConfirm={() => active.mutate({ user: confirming, to: false })}
          isPending={active.isPending}
          error={active.isError ? words(active.error) : undefined}
        >
          <p>
            {nameOf(confirming)} ({confirming.email}) will no longer be able to sign in. Their sessions end
            and their API keys stop working at once. What they wrote stays, and you can reactivate them later.
          </p>
        </ConfirmDialog>
      )}
      {handingOver && (
        <ConfirmDialog
          title={`Transfer ownership to ${nameOf(handingOver)}?`}
          onClose={() => setHandingOver(undefined)}
          confirmLabel="Transfer ownership"
          onConfirm={() => transfer.mutate(handingOver)}
          isPending={transfer.isPending}
          error={transfer.isError ? words(transfer.error) : undefined}
        >
          <p>
            {nameOf(handingOver)} ({handingOver.email}) becomes the owner of this Casebook and you become an
            admin. There is one owner: only {nameOf(handingOver)} can hand ownership on, or back, afterwards.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
