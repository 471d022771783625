import { useCallback, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { projectFoldersQuery, statusesQuery } from '../../api/queries';
import { folderPaths } from '../../lib/folder-path';
import { Button } from '../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { isSingleKeyShortcut, isTyping, useKeyDown } from '../../lib/keys';
import { runQuery, runTaggedIdsQuery, runTestCasesQuery } from './api';
import { MoreFilters } from './run-page/MoreFilters';
import { EditRunDialog } from './list/EditRunDialog';
import { CasePanel } from './run-page/CasePanel';
import {
  draftProblem,
  draftToResult,
  emptyDraft,
  type DraftProblem,
  type RecorderDraft,
} from './run-page/recorder-draft';
import { RunCaseList } from './run-page/RunCaseList';
import { CaseActions, assignOne } from './run-page/CaseActions';
import type { AssignTarget } from './run-page/AssignDialog';
import { canRunTests, meQuery } from '../../session/session';
import { toRows } from './run-page/rows';
import { RunLogs } from './run-page/RunLogs';
import { RunFailures } from '../triage';
import { RunSubtitle } from './due/RunSubtitle';
import { STATUS_FILL, recordable, statusById, type StatusId } from '../../api/statuses';
import { STATUS_KEYS } from './run-page/statuses';
import { useLiveRun } from './run-page/useLiveRun';
import { useRunRecorder } from './run-page/useRunRecorder';
import './run-page/run-page.css';
import { SafeHtml } from '../../components/rich-text/SafeHtml';
import { queryKeys } from '../../api/keys';
import { formatCount, formatDuration, formatPassRate } from '../../lib/format';
import { passRateOf } from './list/order';

const NO_IDS: ReadonlySet<string> = new Set();

/** `/project/{CODE}/run/{id}` (printed by the upload CLI after every upload): where a tester spends the day. */
export function RunPage() {
  const { code, runId } = useParams({ from: '/app/project/$code/run/$runId' });
  // The address carries the filters, and `?tcase=<seq>` (where tracker comments link) the case to open with.
  const urlSearch = useSearch({ from: '/app/project/$code/run/$runId' });
  const navigate = useNavigate({ from: '/project/$code/run/$runId' });
  const wanted = urlSearch.tcase;
  const id = Number(runId);
  const project = code.toUpperCase();
  const queryClient = useQueryClient();
  const run = useQuery({ ...runQuery(code, id), enabled: Number.isInteger(id) });
  const cases = useQuery({ ...runTestCasesQuery(code, id), enabled: Number.isInteger(id) });
  const statusSettings = useQuery(statusesQuery());
  // The groups' whole paths: the project's folders are one small request beside the run's cases.
  const folders = useQuery(projectFoldersQuery(code));
  const folderTitles = useMemo(() => folderPaths(folders.data ?? []), [folders.data]);
  useDocumentTitle(run.data?.title ?? `Run ${runId}`);

  const statuses = useMemo(() => recordable(statusSettings.data), [statusSettings.data]);
  const byId = useMemo(() => statusById(statuses), [statuses]);
  const statusFilter = useMemo(
    () => new Set(urlSearch.status ? urlSearch.status.split(',') : []),
    [urlSearch.status],
  );
  const setStatusFilter = (update: (f: Set<string>) => Set<string>) => {
    const next = [...update(statusFilter)];
    void navigate({
      search: (s) => ({ ...s, status: next.length ? next.join(',') : undefined }),
      replace: true,
    });
  };
  // Typed text stays local (every key at once); the address follows it.
  const [search, setSearchText] = useState(urlSearch.q ?? '');
  const setSearch = (q: string) => {
    setSearchText(q);
    void navigate({ search: (s) => ({ ...s, q: q || undefined }), replace: true });
  };
  const [picked, setPicked] = useState<string>();
  const [checked, setChecked] = useState<Set<string>>(new Set());
  const [startedAt, setStartedAt] = useState(() => Date.now());
  // Drafts per case: moving to another case and back keeps what was typed.
  const [drafts, setDrafts] = useState<ReadonlyMap<string, RecorderDraft>>(new Map());
  const searchRef = useRef<HTMLInputElement>(null);
  const [editing, setEditing] = useState(false);
  const [assigning, setAssigning] = useState<AssignTarget>();
  const closed = !!run.data?.closedAt;
  const me = useQuery(meQuery);
  // Assigning, adding and removing cases: test-runners and up (D3), in an open run.
  const canChange = !closed && me.data !== undefined && canRunTests(me.data.role);
  // "Mine": the signed-in person's cases (none until they are known); "Unassigned": nobody's.
  const assigneeId =
    urlSearch.assignee === 'me' ? (me.data?.id ?? -1) : urlSearch.assignee === 'none' ? null : undefined;
  const recorder = useRunRecorder(code, id);
  const onClosed = useCallback(() => {
    if (!closed) void queryClient.invalidateQueries({ queryKey: queryKeys.run(code, id) });
  }, [closed, queryClient, code, id]);
  useLiveRun(code, id, Number.isInteger(id) && cases.isSuccess, onClosed);

  const priorities = useMemo(
    () => new Set(urlSearch.priority ? urlSearch.priority.split(',') : []),
    [urlSearch.priority],
  );
  const tagged = useQuery({
    ...runTaggedIdsQuery(code, id, urlSearch.tag ?? 0),
    enabled: urlSearch.tag !== undefined && Number.isInteger(id),
  });
  // Until the tagged cases are known, the list shows none rather than all of them.
  const taggedIds = urlSearch.tag === undefined ? undefined : (tagged.data ?? NO_IDS);
  const { rows, visible } = useMemo(
    () => toRows(cases.data ?? [], statusFilter, search, priorities, taggedIds, folderTitles, assigneeId),
    [cases.data, statusFilter, search, priorities, taggedIds, folderTitles, assigneeId],
  );
  const counts = useMemo(() => {
    const m = new Map<string, number>();
    for (const c of cases.data ?? []) m.set(c.status, (m.get(c.status) ?? 0) + 1);
    return m;
  }, [cases.data]);
  const total = cases.data?.length ?? 0;

  const select = useCallback((next: string | undefined) => {
    setPicked(next);
    setStartedAt(Date.now());
  }, []);
  // Until the tester picks one, the first open case (or the first case) is the selected one.
  const selectedId =
    picked ??
    (wanted !== undefined ? cases.data?.find((c) => c.seq === wanted)?.id : undefined) ??
    (visible.find((c) => c.status === 'open') ?? visible[0])?.id;

  const draftOf = useCallback(
    (tcaseId: string | undefined) => (tcaseId && drafts.get(tcaseId)) || emptyDraft,
    [drafts],
  );
  // Bound to the case it was made for: an upload that finishes after the tester moved on lands in its own case.
  const draftUpdater = (tcaseId: string) => (update: (d: RecorderDraft) => RecorderDraft) =>
    setDrafts((all) => new Map(all).set(tcaseId, update(all.get(tcaseId) ?? emptyDraft)));
  // A draft that cannot be sent yet (a bad link, files still uploading) stops the status key and says why, there.
  const [recordError, setRecordError] = useState<DraftProblem & { tcaseId: string }>();

  const move = useCallback(
    (step: number) => {
      if (visible.length === 0) return;
      const at = visible.findIndex((c) => c.id === selectedId);
      const next = Math.min(visible.length - 1, Math.max(0, at + step));
      select(visible[next].id);
    },
    [visible, selectedId, select],
  );

  const recordStatus = useCallback(
    (status: StatusId) => {
      if (closed) return;
      const many = checked.size > 0;
      const ids = many ? [...checked] : selectedId ? [selectedId] : [];
      if (ids.length === 0) return;
      const d = many ? emptyDraft : draftOf(selectedId);
      const problem = draftProblem(d);
      if (problem) {
        setRecordError({ ...problem, tcaseId: ids[0] });
        return;
      }
      setRecordError(undefined);
      const byCase = new Map((cases.data ?? []).map((c) => [c.id, c]));
      const label = many ? `${formatCount(ids.length)} cases` : `${project}-${byCase.get(ids[0])?.seq ?? ''}`;
      void recorder.record(ids, label, {
        ...draftToResult(status, d),
        ...(!many ? { timeTaken: Date.now() - startedAt } : {}),
      });
      if (many) {
        setChecked(new Set());
        return;
      }
      setDrafts((all) => {
        const next = new Map(all);
        next.delete(ids[0]);
        return next;
      });
      // The next open case after this one, in the order shown.
      const at = visible.findIndex((c) => c.id === ids[0]);
      const next = visible.slice(at + 1).find((c) => c.status === 'open') ?? visible[at + 1];
      if (next) select(next.id);
      else setStartedAt(Date.now());
    },
    [closed, checked, selectedId, cases.data, visible, recorder, startedAt, select, project, draftOf],
  );

  // One keystroke per status; j/k move; x selects for a bulk status; / searches. Typing in a field is left alone.
  useKeyDown((e) => {
    if (e.key === 'Escape' && isTyping(e.target)) {
      (e.target as HTMLElement).blur();
      return;
    }
    // A checkbox just ticked keeps the focus, but a key there is a status for the selection (not typing).
    if (!isSingleKeyShortcut(e)) return;
    // Keys pressed in a dialog (editing the run) belong to the dialog, not to the case behind it.
    if (e.target instanceof Element && e.target.closest('[role="dialog"], [role="alertdialog"]')) return;
    const key = e.key.toLowerCase();
    if (key === 'j' || key === 'k') {
      e.preventDefault();
      move(key === 'j' ? 1 : -1);
    } else if (key === 'x' && selectedId) {
      e.preventDefault();
      setChecked((all) => {
        const next = new Set(all);
        if (next.has(selectedId)) next.delete(selectedId);
        else next.add(selectedId);
        return next;
      });
    } else if (key === '/') {
      e.preventDefault();
      searchRef.current?.focus();
    } else {
      const status = statuses.find((s) => STATUS_KEYS[s.id] === key);
      if (status && !closed) {
        e.preventDefault();
        recordStatus(status.id);
      }
    }
  });

  if (!Number.isInteger(id))
    return (
      <div className="page">
        <ErrorState
          title={`“${runId}” is not a run number.`}
          error={new Error('Run addresses end in a number.')}
        />
      </div>
    );
  if (run.isPending) return <Loading label={`Loading run ${runId}…`} />;
  if (run.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Run ${runId} could not be opened.`}
          error={run.error}
          onRetry={() => run.refetch()}
        >
          <Link to="/project/$code/runs" params={{ code: project }}>
            All runs of {project}
          </Link>
          {/* The project itself may be what is missing. */}
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );

  const r = run.data;
  const done = total - (counts.get('open') ?? 0);
  return (
    <div className="page run-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/project/$code/runs" params={{ code: project }}>
          Runs
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">Run {r.id}</span>
      </nav>
      <div className="page-header">
        <div>
          <h1 className="page-title">
            {r.title}
            {closed ? <span className="badge">Closed</span> : <span className="badge badge-open">Open</span>}
          </h1>
          <RunSubtitle milestone={r.milestone} dueAt={r.dueAt} closedAt={r.closedAt} />
          <p className="page-subtitle run-figures">
            <span data-testid="run-pass-rate">
              Pass rate {formatPassRate(passRateOf({ ...Object.fromEntries(counts), all: total }))}
            </span>
            <span data-testid="run-time-spent">
              Time spent {r.timeSpent === null ? '—' : formatDuration(r.timeSpent)}
            </span>
          </p>
        </div>
        <div className="run-actions">
          <Link
            className="btn btn-secondary"
            to="/project/$code/run/$runId/report"
            params={{ code: project, runId: String(r.id) }}
          >
            Report
          </Link>
          {/* The run report's CSV (extensions §6/§7): one row per case with its latest result. */}
          <a
            className="btn btn-secondary"
            href={`/api/public/v0/project/${encodeURIComponent(project)}/run/${r.id}/report?format=csv`}
            download
          >
            Export results as CSV
          </a>
          {!closed && <Button onPress={() => setEditing(true)}>Edit run</Button>}
        </div>
      </div>
      {r.description && <SafeHtml className="prose run-description" html={r.description} />}
      <EditRunDialog code={project} run={editing ? r : undefined} onClose={() => setEditing(false)} />
      {closed && (
        <p className="run-closed" role="note">
          This run is closed: it is read-only. Its results stay as they were recorded.
        </p>
      )}

      <section aria-labelledby="progress-title" className="panel rp-progress">
        <h2 id="progress-title" className="visually-hidden">
          Progress
        </h2>
        <div
          className="status-bar"
          role="img"
          aria-label={`${formatCount(done)} of ${formatCount(total)} done: ${statuses
            .filter((s) => counts.get(s.id))
            .map((s) => `${formatCount(counts.get(s.id) ?? 0)} ${s.name}`)
            .join(', ')}`}
        >
          {statuses.map((s) =>
            counts.get(s.id) ? (
              <span
                key={s.id}
                className="status-bar-part"
                style={{ flexGrow: counts.get(s.id), background: STATUS_FILL[s.color] }}
              />
            ) : null,
          )}
        </div>
        <div className="run-filters" role="group" aria-label="Show cases by status">
          {statuses.map((s) => (
            <button
              key={s.id}
              type="button"
              className="chip"
              aria-pressed={statusFilter.has(s.id)}
              onClick={() =>
                setStatusFilter((f) => {
                  const next = new Set(f);
                  if (next.has(s.id)) next.delete(s.id);
                  else next.add(s.id);
                  return next;
                })
              }
            >
              <span className="status-dot" aria-hidden="true" style={{ background: STATUS_FILL[s.color] }} />
              {s.name}{' '}
              <span className="count" data-testid={`count-${s.id}`}>
                {counts.get(s.id) ?? 0}
              </span>
            </button>
          ))}
          <input
            ref={searchRef}
            type="search"
            className="field-input run-search"
            aria-label="Search the run's cases"
            placeholder="Search (/)"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        <MoreFilters
          code={project}
          priorities={priorities}
          onPriorities={(next) =>
            void navigate({
              search: (s) => ({ ...s, priority: next.size ? [...next].join(',') : undefined }),
              replace: true,
            })
          }
          tag={urlSearch.tag}
          onTag={(tag) => void navigate({ search: (s) => ({ ...s, tag }), replace: true })}
          assignee={urlSearch.assignee}
          onAssignee={(assignee) => void navigate({ search: (s) => ({ ...s, assignee }), replace: true })}
        />
      </section>

      {recorder.failed.map((s) => (
        <div key={s.key} className="status-error run-failed" role="alert">
          <p>
            The result for {s.label} ({byId.get(s.draft.status)?.name ?? s.draft.status}) was not saved:{' '}
            {s.error?.replace(/[.!]?$/, '.')}
            {s.draft.comment ? ' Its comment is kept.' : ''}
          </p>
          <Button onPress={() => void recorder.retry(s)}>Try again</Button>
          <Button variant="ghost" onPress={() => recorder.discard(s.key)}>
            Discard
          </Button>
        </div>
      ))}

      <RunFailures code={project} runId={id} onOpenCase={select} />
      <div className="run-layout">
        <section aria-labelledby="cases-title" className="panel rp-list">
          <h2 id="cases-title" className="panel-title">
            Test cases{' '}
            <span className="count">
              {visible.length === total
                ? formatCount(total)
                : `${formatCount(visible.length)} of ${formatCount(total)}`}
            </span>
            {checked.size > 0 && (
              <span className="run-checked">
                {formatCount(checked.size)} selected{' '}
                <Button variant="ghost" onPress={() => setChecked(new Set())}>
                  Clear
                </Button>
              </span>
            )}
          </h2>
          {canChange && cases.isSuccess && (
            <CaseActions
              code={project}
              runId={id}
              runType={r.type}
              cases={cases.data}
              checked={checked}
              onClearChecked={() => setChecked(new Set())}
              assigning={assigning}
              onAssigning={setAssigning}
              meId={me.data?.id}
            />
          )}
          {cases.isPending || folders.isPending ? (
            <Loading label="Loading the test cases…" />
          ) : cases.isError ? (
            <ErrorState
              title="The test cases could not be loaded."
              error={cases.error}
              onRetry={() => cases.refetch()}
            />
          ) : total === 0 ? (
            <EmptyState title="This run has no test cases." />
          ) : visible.length === 0 ? (
            <EmptyState title="No case matches these filters.">
              <Button
                onPress={() => {
                  setSearchText('');
                  void navigate({
                    search: (s) => ({
                      ...s,
                      status: undefined,
                      q: undefined,
                      priority: undefined,
                      tag: undefined,
                      assignee: undefined,
                    }),
                    replace: true,
                  });
                }}
              >
                Show all cases
              </Button>
            </EmptyState>
          ) : (
            <RunCaseList
              code={project}
              rows={rows}
              selectedId={selectedId}
              checked={checked}
              statuses={byId}
              onSelect={select}
              onAssign={canChange ? (c) => setAssigning(assignOne(project, c)) : undefined}
              onToggle={(tcaseId) =>
                setChecked((all) => {
                  const next = new Set(all);
                  if (next.has(tcaseId)) next.delete(tcaseId);
                  else next.add(tcaseId);
                  return next;
                })
              }
            />
          )}
          {!closed && (
            <p className="run-keys muted">
              Keys: {statuses.map((s) => `${STATUS_KEYS[s.id].toUpperCase()} ${s.name}`).join(' · ')} · J/K
              move · X select · / search
            </p>
          )}
        </section>
        <div className="run-detail">
          {selectedId ? (
            <CasePanel
              code={project}
              runId={id}
              tcaseId={selectedId}
              closed={closed}
              statuses={statuses}
              draft={draftOf(selectedId)}
              onDraft={draftUpdater(selectedId)}
              problem={recordError?.tcaseId === selectedId ? recordError : undefined}
              onRecord={recordStatus}
              startedAt={startedAt}
              checkedCount={checked.size}
            />
          ) : (
            <EmptyState title="Select a case to see its steps and record a result." />
          )}
        </div>
      </div>
      <RunLogs code={project} runId={id} />
    </div>
  );
}
