import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { meQuery } from '../../../session/session';
import { providerErrorsOf, setSignInSettings, signInSettingsQuery, type PasswordSignIn } from './api';

const CHOICES: { value: PasswordSignIn; label: string }[] = [
  { value: 'everyone', label: 'Everyone: anyone with a password signs in with it' },
  {
    value: 'owners',
    label:
      'Owner only (break-glass): everyone else signs in through an identity provider; the owner keeps a password and two-factor sign-in',
  },
];

/**
 * "Password sign-in: everyone | owner only": the owner chooses (admins read it). Owner only needs an enabled
 * provider, and API keys and the CLI's device sign-in keep working for people who sign in through one.
 */
export function PasswordPolicy() {
  const queryClient = useQueryClient();
  const me = useQuery(meQuery).data;
  const current = useQuery(signInSettingsQuery).data?.passwordSignIn;
  const [picked, setPicked] = useState<PasswordSignIn>();
  const [said, setSaid] = useState<string>();
  const isOwner = me?.role === 'owner';
  const value = picked ?? current ?? 'everyone';
  const save = useMutation({
    mutationFn: () => setSignInSettings(value),
    onMutate: () => setSaid(undefined),
    onSuccess: (r) => {
      setPicked(undefined);
      setSaid(
        r.passwordSignIn === 'owners'
          ? 'Saved: only the owner signs in with a password now.'
          : 'Saved: everyone may sign in with a password.',
      );
      void queryClient.invalidateQueries({ queryKey: queryKeys.signInProviders() });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.signInSettings() }),
  });
  const error = save.isError
    ? (providerErrorsOf(save.error).fields.passwordSignIn ?? providerErrorsOf(save.error).form)
    : undefined;
  if (current === undefined) return null;
  return (
    <section className="panel" aria-label="Password sign-in">
      <h2 className="panel-title">Password sign-in</h2>
      <fieldset className="adm-fieldset" aria-describedby={error ? 'sso-policy-err' : 'sso-policy-hint'}>
        <legend className="field-label">Who signs in with a password</legend>
        {CHOICES.map((c) => (
          <label key={c.value} className="checkbox-field">
            <input
              type="radio"
              name="passwordSignIn"
              value={c.value}
              checked={value === c.value}
              disabled={!isOwner}
              onChange={() => (setPicked(c.value), save.reset())}
            />
            {c.label}
          </label>
        ))}
        <p id="sso-policy-hint" className="field-description">
          {isOwner
            ? 'Owner only needs an enabled identity provider. API keys and the command line’s device sign-in keep working.'
            : 'Only the owner changes this.'}
        </p>
        {error && (
          <span id="sso-policy-err" className="field-error" role="alert">
            {error}
          </span>
        )}
      </fieldset>
      {isOwner && (
        <Button
          variant="primary"
          isDisabled={value === current}
          isPending={save.isPending}
          onPress={() => save.mutate()}
        >
          Save password sign-in
        </Button>
      )}
      <p role="status" className="adm-note">
        {said}
      </p>
    </section>
  );
}
