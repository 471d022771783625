import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../components/Button';
import { FormError } from '../../components/FormError';
import { TextField } from '../../components/TextField';
import { useForm } from '../../lib/useForm';
import { meQuery } from '../../session/session';
import { Saved } from './parts';
import { queryKeys } from '../../api/keys';
import { renameMe, changeMyEmail } from './api';

/** Name and e-mail address; a new address needs the current password. */
export function ProfileSection() {
  const me = useQuery(meQuery).data;
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState<string>();
  const save = useMutation({
    mutationFn: async () => {
      const messages: string[] = [];
      if (me && name.trim() !== me.name) {
        await renameMe(name.trim());
        messages.push('name');
      }
      if (me && email.trim() !== me.email) {
        await changeMyEmail(email.trim(), password);
        messages.push('e-mail address');
      }
      return messages;
    },
    onSuccess: (changed) => {
      form.set('password', '');
      setSaved(
        changed.length
          ? `Your ${changed.join(' and ')} ${changed.length > 1 ? 'were' : 'was'} saved.`
          : 'Nothing changed.',
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.me(), exact: true }),
  });
  const form = useForm({
    initial: { name: me?.name ?? '', email: me?.email ?? '', password: '' },
    submit: () => {
      setSaved(undefined);
      return save.mutateAsync();
    },
  });
  const { name, email, password } = form.values;
  const emailChanged = !!me && email.trim() !== me.email;
  useWarnBeforeLeaving(!!me && (name.trim() !== me.name || emailChanged));

  return (
    <section className="panel" aria-labelledby="profile">
      <h2 id="profile" className="panel-title">
        Profile
      </h2>
      <FormError message={form.formError} />
      <Form className="form" validationErrors={form.fieldErrors} onSubmit={form.handleSubmit}>
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          isRequired
          value={name}
          onChange={(v) => form.set('name', v)}
        />
        <TextField
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          isRequired
          value={email}
          onChange={(v) => form.set('email', v)}
        />
        {emailChanged && (
          <TextField
            label="Current password"
            name="password"
            type="password"
            autoComplete="current-password"
            description="Changing your e-mail address needs your password."
            isRequired
            value={password}
            onChange={(v) => form.set('password', v)}
          />
        )}
        <div className="form-row">
          <Button type="submit" variant="primary" isPending={form.submitting}>
            Save profile
          </Button>
          <Saved message={saved} />
        </div>
      </Form>
    </section>
  );
}

/** Leaving the page (reload, closing the tab) with unsaved edits asks first: nothing typed is lost silently. */
function useWarnBeforeLeaving(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);
}
