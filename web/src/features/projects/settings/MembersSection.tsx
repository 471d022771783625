import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { FormError } from '../../../components/FormError';
import { SelectField } from '../../../components/SelectField';
import { ErrorState, Loading } from '../../../components/Status';
import { formatDate } from '../../../lib/format';
import { sentence, useForm } from '../../../lib/useForm';
import type { Me } from '../../../session/session';
import type { Project } from '../api';
import { FieldProblem, fieldProblemOr } from '../../../lib/field-problem';
import {
  accountsQuery,
  ROLE_NAMES,
  type Account,
  addMember,
  membersQuery,
  removeMember,
  type Member,
} from './api';

const seesEverything = (a: { role: string }) => a.role === 'admin' || a.role === 'owner';

/**
 * Who can see the project (D3): admins and the owner see every project; everyone else only as a member. Admins add
 * and remove members here; the tenant's people are managed on the People page.
 */
export function MembersSection({ project }: { project: Project; me: Me }) {
  const code = project.code;
  const members = useQuery(membersQuery(code));
  const accounts = useQuery(accountsQuery);
  const [removing, setRemoving] = useState<Member>();
  if (members.isPending || accounts.isPending) return <Loading label="Loading the members…" />;
  if (members.isError || accounts.isError)
    return (
      <ErrorState
        title="The members could not be loaded."
        error={members.error ?? accounts.error}
        onRetry={() => void Promise.all([members.refetch(), accounts.refetch()])}
      />
    );

  const memberIds = new Set(members.data.map((m) => m.userId));
  const everyone = accounts.data.filter((a) => a.active && seesEverything(a));
  const listed = members.data.filter((m) => !seesEverything(m));
  const addable = accounts.data.filter((a) => a.active && !seesEverything(a) && !memberIds.has(a.id));

  return (
    <>
      <p className="muted settings-lede">
        Admins and the owner see every project. Viewers, test runners and users see this project only as its
        members.
      </p>
      <h3 className="settings-subtitle">Members of this project</h3>
      {listed.length === 0 ? (
        <p className="muted">No members besides admins: only admins and the owner see this project.</p>
      ) : (
        <ul className="share-list" aria-label="Members">
          {listed.map((m) => (
            <li key={m.userId} className="share-row">
              <div className="share-what">
                <p>
                  <strong>{m.name}</strong> <span className="muted">{m.email}</span>
                </p>
                <p className="muted">
                  {ROLE_NAMES[m.role as Account['role']] ?? m.role} · member since {formatDate(m.createdAt)}
                </p>
              </div>
              {!project.archivedAt && (
                <Button aria-label={`Remove ${m.name}`} onPress={() => setRemoving(m)}>
                  Remove…
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!project.archivedAt && <AddMember code={code} addable={addable} />}
      <h3 className="settings-subtitle">Also see it: admins and the owner</h3>
      <ul className="plain-list" aria-label="Admins and the owner">
        {everyone.map((a) => (
          <li key={a.id}>
            {a.name} <span className="muted">· {ROLE_NAMES[a.role]}</span>
          </li>
        ))}
      </ul>
      {removing && (
        <RemoveDialog
          code={code}
          project={project}
          member={removing}
          onClose={() => setRemoving(undefined)}
        />
      )}
    </>
  );
}

function AddMember({ code, addable }: { code: string; addable: Account[] }) {
  const queryClient = useQueryClient();
  const [userId, setUserId] = useState('');
  const [added, setAdded] = useState('');
  const form = useForm({
    submit: async () => {
      setAdded('');
      if (!userId) throw new FieldProblem('userId', 'Choose the person to add.');
      await addMember(code, Number(userId));
      const person = addable.find((a) => a.id === Number(userId));
      setAdded(`${person?.name ?? 'The person'} can now see the project.`);
      setUserId('');
      await queryClient.invalidateQueries({ queryKey: membersQuery(code).queryKey });
    },
    errors: fieldProblemOr,
  });
  return (
    <Form {...form.formProps} className="form settings-inline-form" validationBehavior="aria">
      <FormError message={form.formError} />
      {/* The form stays when the last person was added, so its confirmation is still read out. */}
      {addable.length === 0 ? (
        <p className="muted">Everyone who is not an admin is a member already (or deactivated).</p>
      ) : (
        <SelectField
          label="Add a member"
          name="userId"
          placeholder="Choose a person…"
          value={userId}
          onChange={(v) => {
            form.fieldChanged('userId');
            setUserId(v);
          }}
          options={addable.map((a) => ({ value: String(a.id), label: `${a.name} (${ROLE_NAMES[a.role]})` }))}
          error={form.fieldErrors.userId}
        />
      )}
      <div className="form-row">
        {addable.length > 0 && (
          <Button type="submit" variant="primary" isPending={form.submitting}>
            Add member
          </Button>
        )}
        <p className="settings-saved" role="status">
          {added}
        </p>
      </div>
    </Form>
  );
}

function RemoveDialog({
  code,
  project,
  member,
  onClose,
}: {
  code: string;
  project: Project;
  member: Member;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => removeMember(code, member.userId),
    onSuccess: onClose,
    onSettled: () => queryClient.invalidateQueries({ queryKey: membersQuery(code).queryKey }),
  });
  return (
    <ConfirmDialog
      title={`Remove ${member.name}?`}
      onClose={onClose}
      confirmLabel="Remove member"
      onConfirm={() => remove.mutate()}
      isPending={remove.isPending}
      error={remove.isError ? sentence(remove.error.message) : undefined}
    >
      <p>
        {member.name} no longer sees {project.title}: its test cases, runs and reports. What they recorded
        stays. They can be added again later.
      </p>
    </ConfirmDialog>
  );
}
