import { useQuery } from '@tanstack/react-query';
import { projectsQuery } from '../../projects';
import { OUTCOME_WORDS, ROLES, type TestOutcome } from './api';

const roleLabel = (role: string) =>
  role === 'owner' ? 'Owner' : (ROLES.find((r) => r.role === role)?.label ?? role);

/** What a "Test sign-in" found: the verdict in words, the claims received, and the role and projects they map to. */
export function TestOutcomeView({
  outcome,
  providerName,
  changedSince,
}: {
  outcome: TestOutcome;
  providerName: string;
  /** The provider's settings changed after this test: it may not say what a sign-in does now. */
  changedSince?: boolean;
}) {
  const projects = useQuery(projectsQuery).data ?? [];
  const ok = outcome.outcome === 'success';
  const c = outcome.claims;
  const projectNames = outcome.projectIds.map((id) => projects.find((p) => p.id === id)?.code ?? id);
  return (
    <section className="panel sso-outcome" aria-label={`Last test of ${providerName}`}>
      <h3 className="panel-title">
        Last test: {ok ? 'signed in' : 'refused'}{' '}
        <span className="sso-when">({new Date(outcome.at).toLocaleString()})</span>
      </h3>
      <p className={ok ? 'adm-check adm-check-ok' : 'adm-check adm-check-bad'}>
        {OUTCOME_WORDS[outcome.outcome] ?? outcome.outcome}
        {outcome.detail && !ok ? ` (${outcome.detail})` : ''}
      </p>
      {changedSince && (
        <p className="adm-row-meta">
          The settings changed after this test: test again to see what they do now.
        </p>
      )}
      {c && (
        <dl className="sso-claims" aria-label="Claims received">
          <dt>Subject (sub)</dt>
          <dd>{c.sub}</dd>
          <dt>E-mail</dt>
          <dd>
            {c.email ?? 'none sent'} {c.email ? (c.emailVerified ? '(verified)' : '(not verified)') : ''}
          </dd>
          <dt>Name</dt>
          <dd>{c.name ?? 'none sent'}</dd>
          <dt>Groups</dt>
          <dd>{c.groups.length > 0 ? c.groups.join(', ') : 'none sent'}</dd>
          <dt>Account</dt>
          <dd>
            {outcome.account === 'existing'
              ? 'an existing account'
              : outcome.account === 'new'
                ? 'a new account would be made'
                : 'none'}
          </dd>
          <dt>Role</dt>
          <dd>
            {outcome.role ? roleLabel(outcome.role) : 'none'}
            {outcome.roleRule
              ? ` (rule for group ${outcome.roleRule})`
              : outcome.role
                ? ' (no rule matched)'
                : ''}
          </dd>
          <dt>Projects</dt>
          <dd>{projectNames.length > 0 ? projectNames.join(', ') : 'none from project rules'}</dd>
        </dl>
      )}
    </section>
  );
}
