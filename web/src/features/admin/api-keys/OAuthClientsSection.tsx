import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { TextField } from '../../../components/TextField';
import { ErrorState, Loading } from '../../../components/Status';
import { formatDate } from '../../../lib/format';
import { sentence } from '../../../lib/useForm';
import { oauthClientsQuery, saveClientRule } from './api';

const originsOf = (uris: string[]) => [...new Set(uris.map((u) => new URL(u).origin))].join(', ');

/**
 * The apps (MCP clients) that registered to sign people in with OAuth, and the admin's rule for which of them
 * people may approve: any, or only those sending people back to listed origins.
 */
export function OAuthClientsSection() {
  const queryClient = useQueryClient();
  const list = useQuery(oauthClientsQuery);
  const [draft, setDraft] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (allowedOrigins: string[] | null) => saveClientRule(allowedOrigins),
    onSuccess: () => {
      setDraft(null);
      return queryClient.invalidateQueries({ queryKey: oauthClientsQuery.queryKey });
    },
  });
  if (list.isPending) return <Loading label="Loading app sign-ins…" />;
  if (list.isError)
    return (
      <ErrorState title="The apps could not be loaded." error={list.error} onRetry={() => list.refetch()} />
    );
  const { policy, clients } = list.data;
  const text = draft ?? (policy.allowedOrigins ?? []).join('\n');

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const origins = text.split(/[\s,]+/).filter((o) => o !== '');
    save.mutate(origins.length === 0 ? null : origins);
  }

  return (
    <section className="panel" aria-labelledby="oauth-clients-title">
      <h2 id="oauth-clients-title" className="panel-title">
        App sign-ins (OAuth)
      </h2>
      <p>
        AI assistants and other MCP clients register themselves and ask people to approve them. The approval
        page names each app and the address it sends people back to.{' '}
        {policy.allowedOrigins === null
          ? 'Today people may approve any app.'
          : `Today people may approve only apps at: ${policy.allowedOrigins.join(', ')}.`}
      </p>
      <Form onSubmit={submit} className="form">
        <TextField
          label="Allowed app addresses"
          name="allowedOrigins"
          multiline
          value={text}
          onChange={setDraft}
          description="One origin a line, e.g. https://claude.ai. http://localhost or http://127.0.0.1 without a port allows apps on the person's own computer. Empty: any app."
        />
        {save.isError && (
          <p className="form-error" role="alert">
            {sentence(save.error.message)}
          </p>
        )}
        <div>
          <Button type="submit" variant="primary" isPending={save.isPending}>
            Save rule
          </Button>
        </div>
      </Form>
      {clients.length === 0 ? (
        <p className="muted">No app has registered yet.</p>
      ) : (
        <ul className="keys-list" aria-label="Registered apps">
          {clients.map((c) => (
            <li key={c.clientId} className="keys-row">
              <div className="keys-who">
                <span className="keys-name">
                  {c.clientName} {!c.allowed && <span className="badge">Not allowed</span>}
                </span>
                <span className="muted">
                  Sends people back to {originsOf(c.redirectUris)} · registered {formatDate(c.createdAt)} ·{' '}
                  {c.liveSignIns} signed in
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
