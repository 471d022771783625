import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/keys';
import { statusesQuery } from '../../api/queries';
import { Button } from '../../components/Button';
import { ErrorState } from '../../components/Status';
import { formatCount } from '../../lib/format';
import { canRunTests, meQuery } from '../../session/session';
import { markGroupKnown, runFailureGroupsQuery, unmarkKnown, type FailureGroup } from './api';
import { FailureGroupItem } from './FailureGroupItem';
import { LinkDefectDialog } from './LinkDefectDialog';
import { failuresSummary } from './words';
import './triage.css';

interface Said {
  text: string;
  /** The group whose known mark the message offers to take back. */
  undo?: FailureGroup;
  error?: boolean;
}

/**
 * The run page's "Failures": the run's failed and blocked cases grouped by what they fail with, new ones marked
 * against the comparable run, known ones apart; "Link this defect to all" and "Mark all as known" (with Undo),
 * each one request. Collapsed to one line until asked for: the tester's list stays where it was.
 */
export function RunFailures({
  code,
  runId,
  onOpenCase,
}: {
  code: string;
  runId: number;
  onOpenCase: (tcaseId: string) => void;
}) {
  const queryClient = useQueryClient();
  const groups = useQuery(runFailureGroupsQuery(code, runId));
  const me = useQuery(meQuery);
  const statuses = useQuery(statusesQuery());
  const [expanded, setExpanded] = useState(false);
  const [linking, setLinking] = useState<FailureGroup>();
  // Which groups show their cases, by signature: a group keeps it when it moves between the lists (known).
  const [openGroups, setOpenGroups] = useState<ReadonlySet<string>>(new Set());
  const [said, setSaid] = useState<Said>();
  const canTriage = me.data !== undefined && canRunTests(me.data.role);

  // A status that moves in the run's list (recorded here, or arriving through the live changes) can move a case
  // between groups: the groups are asked again whenever the list's data changes.
  useEffect(() => {
    const listKey = JSON.stringify(queryKeys.runCases(code, runId));
    return queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'success' && event.query.queryHash === listKey)
        void queryClient.invalidateQueries({ queryKey: queryKeys.runFailureGroups(code, runId) });
    });
  }, [queryClient, code, runId]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.runFailureGroups(code, runId) });
  const mark = useMutation({
    mutationFn: (g: FailureGroup) => markGroupKnown(code, runId, g.signature),
    onSuccess: async (_answer, g) => {
      await refresh();
      setSaid({ text: `“${g.label}” is marked as known.`, undo: g });
    },
    onError: (e) => setSaid({ text: `Not marked as known: ${e.message}`, error: true }),
  });
  const unmark = useMutation({
    mutationFn: (g: FailureGroup) => unmarkKnown(code, g.signature),
    onSuccess: async (_answer, g) => {
      await refresh();
      setSaid({ text: `“${g.label}” is no longer marked as known.` });
    },
    onError: (e) => setSaid({ text: `The known mark was not taken back: ${e.message}`, error: true }),
  });

  const names = useMemo(
    () => new Map((statuses.data ?? []).map((s) => [s.id as string, s.name])),
    [statuses.data],
  );
  const statusName = (id: string) => names.get(id) ?? id;

  if (groups.isError)
    return (
      <section className="panel triage-panel" aria-labelledby="triage-title">
        <h2 id="triage-title" className="panel-title">
          Failures
        </h2>
        <ErrorState
          title="The run's failures could not be grouped."
          error={groups.error}
          onRetry={() => groups.refetch()}
        />
      </section>
    );
  // Nothing to triage: no panel, as a run without logs shows no logs.
  if (!groups.data || groups.data.groups.length === 0) return null;
  const { comparedWith } = groups.data;
  const open = groups.data.groups.filter((g) => !g.known);
  const known = groups.data.groups.filter((g) => g.known);
  const fresh = comparedWith === null ? 0 : groups.data.groups.filter((g) => g.isNew).length;
  const item = (g: FailureGroup) => (
    <FailureGroupItem
      key={g.signature}
      code={code}
      group={g}
      open={openGroups.has(g.signature)}
      onToggle={() =>
        setOpenGroups((all) => {
          const next = new Set(all);
          if (!next.delete(g.signature)) next.add(g.signature);
          return next;
        })
      }
      comparedWith={comparedWith}
      statusName={statusName}
      canTriage={canTriage}
      busy={mark.isPending || unmark.isPending}
      onOpenCase={(tcaseId) => {
        onOpenCase(tcaseId);
        // The case opens beside the list (under it on a phone), maybe out of view: its top is brought just under
        // the sticky top bar.
        const detail = document.querySelector('.run-detail');
        if (!detail) return;
        const below = document.querySelector('.topbar')?.getBoundingClientRect().bottom ?? 0;
        const top = detail.getBoundingClientRect().top;
        if (top < below || top > window.innerHeight / 2) window.scrollBy({ top: top - below - 12 });
      }}
      onLink={() => setLinking(g)}
      onMarkKnown={() => mark.mutate(g)}
      onUnmarkKnown={() => unmark.mutate(g)}
    />
  );

  return (
    <section className="panel triage-panel" aria-labelledby="triage-title">
      <div className="triage-panel-head">
        <h2 id="triage-title" className="panel-title">
          Failures <span className="count">{formatCount(groups.data.groups.length)}</span>
        </h2>
        <p className="triage-summary muted" data-testid="triage-summary">
          {failuresSummary(groups.data.groups)}
          {comparedWith === null
            ? ' · no earlier run to compare with'
            : ` · ${formatCount(fresh)} new since run ${comparedWith}`}
          {known.length > 0 ? ` · ${formatCount(known.length)} known` : ''}
        </p>
        <Button aria-expanded={expanded} onPress={() => setExpanded((e) => !e)}>
          {expanded ? 'Hide failure groups' : 'Show failure groups'}
        </Button>
      </div>
      <div role="status" className="triage-said">
        {said && !said.error && (
          <p>
            {said.text}{' '}
            {said.undo && (
              <Button variant="ghost" isDisabled={unmark.isPending} onPress={() => unmark.mutate(said.undo!)}>
                Undo
              </Button>
            )}
          </p>
        )}
      </div>
      {said?.error && (
        <p className="field-error" role="alert">
          {said.text}
        </p>
      )}
      {expanded && (
        <>
          {open.length > 0 && (
            <ul className="triage-groups" aria-label="Failure groups">
              {open.map(item)}
            </ul>
          )}
          {known.length > 0 && (
            <>
              <h3 className="panel-subtitle">Known problems</h3>
              <ul className="triage-groups" aria-label="Known failure groups">
                {known.map(item)}
              </ul>
            </>
          )}
        </>
      )}
      <LinkDefectDialog
        code={code}
        runId={runId}
        group={linking}
        onClose={() => setLinking(undefined)}
        onLinked={(text) => setSaid({ text })}
      />
    </section>
  );
}
