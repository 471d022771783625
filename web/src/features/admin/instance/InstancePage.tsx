import { useMutation, useQuery } from '@tanstack/react-query';
import { Button } from '../../../components/Button';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatDate } from '../../../lib/format';
import { sentence, UNREACHABLE } from '../../../lib/useForm';
import { isApiError } from '../../../api/client';
import { instanceQuery, sendTestMail } from './api';
import '../audit-log/audit-log.css';
import './instance.css';

/** The tenant as its owner sees it: name, public address, mail settings, and a test e-mail. */
export function InstancePage() {
  useDocumentTitle('Instance');
  return <Instance />;
}

function Instance() {
  const details = useQuery(instanceQuery);
  const test = useMutation({ mutationFn: sendTestMail });
  if (details.isPending) return <Loading label="Loading the instance…" />;
  if (details.isError)
    return (
      <div className="page page-narrow">
        <ErrorState
          title="The instance could not be loaded."
          error={details.error}
          onRetry={() => details.refetch()}
        />
      </div>
    );
  const { tenant, publicUrl, publicUrlSet, mail } = details.data;
  const outcome = test.isError
    ? { ok: false, text: isApiError(test.error) ? sentence(test.error.message) : UNREACHABLE }
    : test.data?.sent
      ? {
          ok: true,
          text: `The test e-mail was sent to ${test.data.to}. Check that inbox (and its spam folder).`,
        }
      : test.data
        ? {
            ok: false,
            text: `The mail server refused the test e-mail to ${test.data.to}: ${test.data.error ?? 'no reason given'}.`,
          }
        : undefined;

  return (
    <div className="page page-narrow instance-page">
      <h1 className="page-title">Instance</h1>
      <section className="panel" aria-labelledby="instance-tenant">
        <h2 id="instance-tenant" className="panel-title">
          Tenant
        </h2>
        <dl className="instance-dl">
          <dt>Name</dt>
          <dd>{tenant.name}</dd>
          <dt>Identifier</dt>
          <dd>
            <code>{tenant.id}</code>
          </dd>
          <dt>Host name</dt>
          <dd>{tenant.host ?? 'Any (the default tenant)'}</dd>
          <dt>Public address</dt>
          <dd>
            <code>{publicUrl}</code>
            {!publicUrlSet && (
              <p className="muted instance-note">
                Guessed from where the service listens: set <code>CASEBOOK_PUBLIC_URL</code> so links in
                e-mails and shared reports point to the right address.
              </p>
            )}
          </dd>
          <dt>Features</dt>
          <dd>{tenant.features.length > 0 ? tenant.features.join(', ') : 'None'}</dd>
          <dt>Created</dt>
          <dd>{formatDate(tenant.createdAt)}</dd>
        </dl>
      </section>
      <section className="panel" aria-labelledby="instance-mail">
        <h2 id="instance-mail" className="panel-title">
          E-mail
        </h2>
        {mail.configured ? (
          <dl className="instance-dl">
            <dt>Status</dt>
            <dd>Configured</dd>
            <dt>Mail server</dt>
            <dd>
              <code>{mail.server}</code>
            </dd>
            <dt>Sender</dt>
            <dd>{mail.from}</dd>
          </dl>
        ) : (
          <p>
            <strong>Not configured.</strong> Invitations and password resets give a link to copy instead of an
            e-mail. Set <code>CASEBOOK_SMTP_URL</code> (and <code>CASEBOOK_MAIL_FROM</code>) where the service
            runs and restart it.
          </p>
        )}
        <div className="instance-test">
          <Button isPending={test.isPending} onPress={() => test.mutate()}>
            Send a test e-mail
          </Button>
          <p role="status" className={outcome ? (outcome.ok ? 'instance-ok' : 'instance-bad') : undefined}>
            {outcome?.text}
          </p>
        </div>
      </section>
    </div>
  );
}
