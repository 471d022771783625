import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { isApiError } from '../../api/client';
import { Button } from '../../components/Button';
import { FormError } from '../../components/FormError';
import { TextField } from '../../components/TextField';
import { sentence, useForm, type FormErrors } from '../../lib/useForm';
import { accessDefaultsQuery, invite, ROLE_NAMES, type Role } from './api';
import { InviteProjects, type ProjectChoice } from './InviteProjects';
import type { OneTimeLink } from './OneTimeLinkDialog';
import { words } from './people-text';
import { RoleSelect } from './RoleSelect';
import { queryKeys } from '../../api/keys';

/** Refusals without a field are about one all the same: the address (taken, pending) or the role (too high). */
function inviteErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e)) return { form: words(e), fields: {} };
  const fields = e.fieldErrors();
  if (Object.keys(fields).length === 0 && e.status === 409) fields.email = words(e);
  if (Object.keys(fields).length === 0 && e.status === 403) fields.role = words(e);
  if (Object.keys(fields).length === 0) return { form: words(e), fields: {} };
  return { fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, sentence(v)])) };
}

/** Invites someone by e-mail with a role; without mail set up, the link is shown to pass on. */
export function InviteSection({ onLink }: { onLink: (l: OneTimeLink) => void }) {
  const queryClient = useQueryClient();
  const [sent, setSent] = useState<string>();
  const send = useMutation({
    mutationFn: invite,
    onSuccess: (r) => {
      form.set('email', '');
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
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.invitations() }),
  });
  // Until the admin chooses, the invitation grants what the tenant gives new members by default.
  const defaults = useQuery(accessDefaultsQuery).data;
  const [chosen, setChosen] = useState<ProjectChoice>();
  const projects: ProjectChoice = chosen ?? {
    mode: defaults?.newMembersJoinAllProjects ? 'all' : 'chosen',
    codes: [],
  };
  const form = useForm({
    initial: { email: '', role: 'user' as Role },
    errors: inviteErrorsOf,
    submit: ({ email, role }) => {
      setSent(undefined);
      return send.mutateAsync({
        email: email.trim(),
        role,
        ...(projects.mode === 'all' ? { allProjects: true } : { projects: projects.codes }),
      });
    },
  });
  const { email, role } = form.values;
  const { fieldErrors } = form;
  return (
    <section className="panel" aria-labelledby="invite">
      <h2 id="invite" className="panel-title">
        Invite someone
      </h2>
      <FormError message={form.formError} />
      <Form
        className="form people-invite"
        validationErrors={fieldErrors.email ? { email: fieldErrors.email } : {}}
        onSubmit={form.handleSubmit}
      >
        <TextField
          label="E-mail"
          name="email"
          type="email"
          autoComplete="off"
          isRequired
          value={email}
          onChange={(v) => form.set('email', v)}
        />
        <RoleSelect
          label="Role"
          value={role}
          onChange={(v) => form.set('role', v)}
          error={fieldErrors.role}
        />
        <InviteProjects value={projects} onChange={setChosen} error={fieldErrors.projects} />
        <Button type="submit" variant="primary" isPending={form.submitting}>
          Send invitation
        </Button>
      </Form>
      <p role="status" className="people-note">
        {sent}
      </p>
    </section>
  );
}
