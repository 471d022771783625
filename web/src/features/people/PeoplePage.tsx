import { useId, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { meQuery } from '../../session/session';
import {
  accountsQuery,
  ASSIGNABLE_ROLES,
  canManagePeople,
  changeRole,
  invitationsQuery,
  invite,
  issuePasswordReset,
  revokeInvitation,
  ROLE_NAMES,
  setActive,
  transferOwnership,
  type Account,
  type Invitation,
  type Role,
} from './api';
import './people.css';

const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/\.?$/, '.');

/** An API refusal in words, as a sentence. */
function words(e: unknown): string {
  if (isApiError(e)) return sentence(e.message);
  return 'The service could not be reached. Check your connection and try again.';
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const day = (iso: string) => dateFormat.format(new Date(iso));
const moment = (iso: string) => dateTimeFormat.format(new Date(iso));
const nameOf = (a: Pick<Account, 'name' | 'email'>) => a.name || a.email;

/** A one-time link (invitation or password reset) that was not e-mailed: shown once, to be passed on. */
interface OneTimeLink {
  title: string;
  intro: string;
  link: string;
  expiresAt: string;
}

export function PeoplePage() {
  useDocumentTitle('People');
  const me = useQuery(meQuery).data;
  if (!me) return <Loading label="Loading your account…" />;
  if (!canManagePeople(me.role)) {
    return (
      <div className="page page-narrow">
        <h1 className="page-title">People</h1>
        <div className="panel people-denied">
          <p className="status-title">You need the admin role to manage people.</p>
          <p>
            Your role is “{ROLE_NAMES[me.role]}”. Inviting people, changing roles and deactivating accounts is
            for admins and the owner: ask one of them if you need a change.
          </p>
          <p>
            <Link to="/">Go to your projects</Link>
          </p>
        </div>
      </div>
    );
  }
  return <People me={me} />;
}

function People({ me }: { me: { id: number; role: Role } }) {
  const [shown, setShown] = useState<OneTimeLink>();
  return (
    <div className="page page-narrow people">
      <h1 className="page-title">People</h1>
      <InviteSection onLink={setShown} />
      <InvitationsSection />
      <UsersSection me={me} onLink={setShown} />
      <Dialog
        title={shown?.title ?? ''}
        isOpen={!!shown}
        onOpenChange={(open) => !open && setShown(undefined)}
        // Shown once: only Done closes it, never a stray Escape or click beside it.
        isDismissable={false}
      >
        {shown && (
          <div className="one-time-link">
            <p>{shown.intro}</p>
            <p>
              <strong>This link is shown only this once and will not be shown again.</strong> Copy it now. It
              works once, until {moment(shown.expiresAt)}.
            </p>
            {/* A read-only text area: a name is allowed on it (not on <code>), and the link wraps and selects. */}
            <textarea
              className="people-secret"
              aria-label="One-time link"
              readOnly
              rows={3}
              value={shown.link}
              onFocus={(e) => e.currentTarget.select()}
            />
            <div className="dialog-actions">
              <CopyButton text={shown.link} />
              <Button slot="close" variant="primary">
                Done
              </Button>
            </div>
          </div>
        )}
      </Dialog>
    </div>
  );
}

function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <span className="people-copy">
      <Button
        onPress={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setState('copied');
          } catch {
            setState('failed');
          }
        }}
      >
        Copy the link
      </Button>
      <span role="status" className="people-note">
        {state === 'copied'
          ? 'Copied.'
          : state === 'failed'
            ? 'Copying was refused by the browser: select the link and copy it.'
            : ''}
      </span>
    </span>
  );
}

function RoleSelect({
  label,
  value,
  onChange,
  error,
  isDisabled,
  hideLabel,
  action,
}: {
  label: string;
  value: Role;
  onChange: (role: Role) => void;
  error?: string;
  isDisabled?: boolean;
  hideLabel?: boolean;
  /** Beside the select (the row's Save button). */
  action?: ReactNode;
}) {
  const id = useId();
  return (
    <div className="field people-role-field">
      <label className={hideLabel ? 'visually-hidden' : 'field-label'} htmlFor={id}>
        {label}
      </label>
      <div className="people-role-control">
        <select
          id={id}
          className="field-input"
          value={value}
          disabled={isDisabled}
          aria-describedby={error ? `${id}-err` : undefined}
          aria-invalid={error ? true : undefined}
          onChange={(e) => onChange(e.target.value as Role)}
        >
          {ASSIGNABLE_ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_NAMES[r]}
            </option>
          ))}
        </select>
        {action}
      </div>
      {error && (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

function InviteSection({ onLink }: { onLink: (l: OneTimeLink) => void }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('user');
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const [sent, setSent] = useState<string>();
  const send = useMutation({
    mutationFn: () => invite({ email: email.trim(), role }),
    onMutate: () => {
      setFieldErrors({});
      setFormError(undefined);
      setSent(undefined);
    },
    onSuccess: (r) => {
      setEmail('');
      if (r.link) {
        setSent(`Invitation created for ${r.email}.`);
        onLink({
          title: `Invitation link for ${r.email}`,
          intro: `No mail is set up on this service, so pass this link on to ${r.email} yourself. It lets them choose their name and password and join as ${ROLE_NAMES[r.role].toLowerCase()}.`,
          link: r.link,
          expiresAt: r.expiresAt,
        });
      } else setSent(`Invitation e-mailed to ${r.email}.`);
    },
    onError: (e) => {
      if (!isApiError(e)) return setFormError(words(e));
      const fields = e.fieldErrors();
      // Refusals without a field are about one all the same: the address (taken, pending) or the role (too high).
      if (Object.keys(fields).length === 0 && e.status === 409) fields.email = words(e);
      if (Object.keys(fields).length === 0 && e.status === 403) fields.role = words(e);
      if (Object.keys(fields).length > 0)
        setFieldErrors(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, sentence(v)])));
      else setFormError(words(e));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations() }),
  });
  return (
    <section className="panel" aria-labelledby="invite">
      <h2 id="invite" className="panel-title">
        Invite someone
      </h2>
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <Form
        className="form people-invite"
        validationErrors={fieldErrors.email ? { email: fieldErrors.email } : {}}
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate();
        }}
      >
        <TextField
          label="E-mail"
          name="email"
          type="email"
          autoComplete="off"
          isRequired
          value={email}
          onChange={setEmail}
        />
        <RoleSelect label="Role" value={role} onChange={setRole} error={fieldErrors.role} />
        <Button type="submit" variant="primary" isPending={send.isPending}>
          Send invitation
        </Button>
      </Form>
      <p role="status" className="people-note">
        {sent}
      </p>
    </section>
  );
}

function InvitationsSection() {
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
                  {ROLE_NAMES[inv.role]} · invited by {inviter(inv.invitedBy)} on {day(inv.createdAt)} ·
                  expires {moment(inv.expiresAt)}
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

function UsersSection({ me, onLink }: { me: { id: number; role: Role }; onLink: (l: OneTimeLink) => void }) {
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
      <Dialog
        title={confirming ? `Deactivate ${nameOf(confirming)}?` : ''}
        isOpen={!!confirming}
        onOpenChange={(open) => !open && setConfirming(undefined)}
        isDismissable={!active.isPending}
      >
        {confirming && (
          <>
            <p>
              {nameOf(confirming)} ({confirming.email}) will no longer be able to sign in. Their sessions end
              and their API keys stop working at once. What they wrote stays, and you can reactivate them
              later.
            </p>
            {active.isError && (
              <p className="form-error" role="alert">
                {words(active.error)}
              </p>
            )}
            <div className="dialog-actions">
              <Button slot="close" isDisabled={active.isPending}>
                Cancel
              </Button>
              <Button
                variant="danger"
                isPending={active.isPending}
                onPress={() => active.mutate({ user: confirming, to: false })}
              >
                Deactivate {nameOf(confirming)}
              </Button>
            </div>
          </>
        )}
      </Dialog>
      <Dialog
        title={handingOver ? `Transfer ownership to ${nameOf(handingOver)}?` : ''}
        isOpen={!!handingOver}
        onOpenChange={(open) => !open && setHandingOver(undefined)}
        isDismissable={!transfer.isPending}
      >
        {handingOver && (
          <>
            <p>
              {nameOf(handingOver)} ({handingOver.email}) becomes the owner of this Casebook and you become an
              admin. There is one owner: only {nameOf(handingOver)} can hand ownership on, or back,
              afterwards.
            </p>
            {transfer.isError && (
              <p className="form-error" role="alert">
                {words(transfer.error)}
              </p>
            )}
            <div className="dialog-actions">
              <Button slot="close" isDisabled={transfer.isPending}>
                Cancel
              </Button>
              <Button
                variant="danger"
                isPending={transfer.isPending}
                onPress={() => transfer.mutate(handingOver)}
              >
                Transfer ownership
              </Button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}
