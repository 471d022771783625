import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { formatCountOf, formatDate } from '../../lib/format';
import { canRunTests, meQuery } from '../../session/session';
import { linkDefectToGroup, resultSuggestionsQuery, runFailureGroupsQuery, type Suggestion } from './api';
import './triage.css';

/** The failures the service signs (docs/api-decisions.md#failure-triage): custom statuses are the tenant's. */
const SIGNED = new Set(['failed', 'blocked']);

/**
 * Under a case's latest result in the run: the defects linked before to failures like it, with who linked them
 * in which run. Accept links the defect as a person does (the group's link request, so the run's other cases
 * failing the same way get it too); nothing is linked without it.
 */
export function FailureSuggestions({
  code,
  runId,
  result,
}: {
  code: string;
  runId: number;
  result: { id: number; status: string; links: { url: string }[] };
}) {
  const signed = SIGNED.has(result.status);
  const queryClient = useQueryClient();
  const suggestions = useQuery({ ...resultSuggestionsQuery(code, result.id), enabled: signed });
  const groups = useQuery({ ...runFailureGroupsQuery(code, runId), enabled: signed });
  const me = useQuery(meQuery);
  const [said, setSaid] = useState('');
  const signature = suggestions.data?.signature;
  const group = groups.data?.groups.find((g) => g.signature === signature);
  const accept = useMutation({
    mutationFn: (s: Suggestion) =>
      linkDefectToGroup(code, runId, signature!, {
        url: s.url,
        text: s.text,
        ...(s.integrationId ? { integrationId: s.integrationId } : {}),
        ...(s.issueId ? { meta: { id: s.issueId } } : {}),
      }),
    onSuccess: async (answer, s) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.run(code, runId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.resultSuggestions(code, result.id) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.reports(code), refetchType: 'none' }),
      ]);
      setSaid(`“${s.text}” linked to ${formatCountOf(answer.linked.length, 'case')}.`);
    },
  });
  if (!signed || !signature) return null;
  // A defect this result carries already is no suggestion any more.
  const linked = new Set(result.links.map((l) => l.url));
  const shown = (suggestions.data?.suggestions ?? []).filter((s) => !linked.has(s.url));
  const canAccept = me.data !== undefined && canRunTests(me.data.role) && group !== undefined;
  if (shown.length === 0 && !said) return null;
  return (
    <section className="triage-suggestions" aria-labelledby="triage-suggestions-title">
      <h3 id="triage-suggestions-title" className="section-title">
        Suggested from past decisions
      </h3>
      <div role="status">{said && <p>{said}</p>}</div>
      <ul className="triage-suggestion-list">
        {shown.map((s) => {
          const last = s.evidence[0];
          return (
            <li key={s.url} className="triage-suggestion">
              <p>
                Suggested defect:{' '}
                <a href={s.url} target="_blank" rel="noopener noreferrer">
                  {s.text || s.url}
                </a>
                {last && (
                  <span className="muted">
                    {' '}
                    — linked by {last.linkedBy?.name ?? 'someone no longer here'} in run “{last.runTitle}” on{' '}
                    {formatDate(last.linkedAt)}
                    {s.runs > 1 ? ` (${formatCountOf(s.runs, 'run')} in all)` : ''}
                  </span>
                )}
              </p>
              {canAccept && (
                <div className="triage-accept">
                  <Button
                    variant="primary"
                    isPending={accept.isPending && accept.variables?.url === s.url}
                    isDisabled={accept.isPending}
                    aria-describedby={`triage-accept-${result.id}`}
                    onPress={() => accept.mutate(s)}
                  >
                    Accept
                  </Button>
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {canAccept && shown.length > 0 && (
        <p id={`triage-accept-${result.id}`} className="muted triage-accept-note">
          {group!.count === 1
            ? 'Accept links the defect to this result.'
            : `Accept links the defect to the latest result of each of the ${formatCountOf(group!.count, 'case')} failing this way in this run.`}
        </p>
      )}
      {accept.isError && (
        <p className="field-error" role="alert">
          The defect was not linked: {accept.error.message}
        </p>
      )}
    </section>
  );
}
