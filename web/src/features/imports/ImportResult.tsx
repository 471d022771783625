import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { queryKeys } from '../../api/keys';
import { Button } from '../../components/Button';
import { JobProgress } from '../../components/JobProgress';
import { ErrorState } from '../../components/Status';
import { formatCount, formatCountOf } from '../../lib/format';
import { importQuery, isFinished, reconciliationUrl, type ImportStatus } from './api';
import { FORMATS } from './formats';

/** The service's field names of a bad row, in words. */
const FIELD_NAMES: Record<string, string> = {
  title: 'Title',
  folder: 'Folder',
  priority: 'Priority',
  tags: 'Tags',
  precondition: 'Precondition',
  steps: 'Steps',
  expected: 'Expected results',
  legacyId: 'Legacy ID',
  links: 'Links',
  requirements: 'Requirements',
  draft: 'Draft',
  type: 'Type',
  Files: 'Files',
};
const fieldName = (f?: string) =>
  f === undefined ? '' : f.startsWith('customField:') ? `Custom field ${f.slice(12)}` : (FIELD_NAMES[f] ?? f);

/**
 * One import job: a progress bar while it runs (asked again each second), then what it did and every bad row.
 * `onImportForReal` is offered after a dry run: the same file and options, this time written.
 */
export function ImportResult({
  code,
  id,
  onImportForReal,
  starting,
}: {
  code: string;
  id: number;
  onImportForReal: () => void;
  starting: boolean;
}) {
  const job = useQuery(importQuery(code, id));
  const queryClient = useQueryClient();
  const wrote =
    job.data !== undefined &&
    isFinished(job.data) &&
    !job.data.dryRun &&
    job.data.created + job.data.updated > 0;
  // Cases, folders and tags the import wrote show at once in the repository.
  useEffect(() => {
    if (!wrote) return;
    for (const key of [
      queryKeys.caseLists(code),
      queryKeys.testCases(code),
      queryKeys.folders(code),
      queryKeys.tags(code),
      queryKeys.projectCounts(code),
    ])
      void queryClient.invalidateQueries({ queryKey: key });
  }, [wrote, code, queryClient]);

  if (job.isError)
    return (
      <ErrorState
        title="The import's progress could not be read."
        error={job.error}
        onRetry={() => job.refetch()}
      />
    );
  const s = job.data;
  const done = s !== undefined && isFinished(s) ? s : undefined;
  return (
    <section className="panel import-result" aria-labelledby="import-result-title">
      <h2 id="import-result-title" className="panel-title">
        {done ? resultTitle(done) : s?.dryRun ? 'Checking the file (dry run)…' : 'Importing…'}
      </h2>
      {!done ? (
        <Progress status={s} />
      ) : (
        <>
          <Counts s={done} />
          <CountsNote s={done} />
          {done.dryRun && (
            <div className="import-again">
              <p>
                A dry run writes nothing.{' '}
                {done.status === 'failed' && done.skipped > 0
                  ? 'Fix the file, or tick “Skip bad rows” above to import the good rows only, then:'
                  : 'Import the same file with the same options:'}
              </p>
              <Button variant="primary" onPress={onImportForReal} isDisabled={starting}>
                Import for real
              </Button>
            </div>
          )}
          {!done.dryRun && done.status === 'failed' && done.skipped > 0 && (
            <p>Fix the file, or tick “Skip bad rows” above to import the good rows only, and start again.</p>
          )}
          {!done.dryRun && done.created + done.updated > 0 && (
            <p>
              <Link to="/project/$code/repository" params={{ code }}>
                Open the repository
              </Link>
            </p>
          )}
          <Reconciliation code={code} s={done} />
          {done.errors.length > 0 && (
            <RowTable
              s={done}
              rows={done.errors}
              label="Rows not imported"
              caption={`${formatCountOf(done.errors.length, 'problem')} found${
                done.status === 'failed' && !done.dryRun ? '; nothing was written' : ''
              }`}
            />
          )}
          {done.warnings.length > 0 && (
            <RowTable
              s={done}
              rows={done.warnings}
              label="What was not kept as it was"
              caption={`${formatCountOf(done.warnings.length, 'warning')}: imported, but not as in the file`}
            />
          )}
        </>
      )}
    </section>
  );
}

const KINDS: [string, string][] = [
  ['folders', 'Folders'],
  ['cases', 'Test cases'],
  ['steps', 'Steps'],
  ['customValues', 'Custom field values'],
  ['requirements', 'Requirements'],
  ['links', 'Links'],
  ['files', 'Files'],
];

/** Per kind: what the file held, and what was created, changed and left out (the reasons are in the tables below). */
function Reconciliation({ code, s }: { code: string; s: ImportStatus }) {
  const r = s.reconciliation;
  const would = s.dryRun ? ' (would be)' : '';
  const id = `import-reconciliation-${s.id}`;
  return (
    <div className="import-reconciliation-block">
      <p className="import-table-title" id={id}>
        Reconciliation: everything in the file, and what became of it{' '}
        <a href={reconciliationUrl(code, s.id)} download>
          Download as CSV
        </a>
      </p>
      <div className="import-table-wrap" tabIndex={0} role="region" aria-labelledby={id}>
        <table className="import-table import-reconciliation" aria-labelledby={id}>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">In file</th>
              <th scope="col">Created{would}</th>
              <th scope="col">Updated{would}</th>
              <th scope="col">Left out</th>
            </tr>
          </thead>
          <tbody>
            {KINDS.map(([kind, name]) => {
              const c = r[kind] ?? { inFile: 0, created: 0, updated: 0, leftOut: 0 };
              return (
                <tr key={kind}>
                  <th scope="row">{name}</th>
                  <td>{formatCount(c.inFile)}</td>
                  <td>{formatCount(c.created)}</td>
                  <td>{formatCount(c.updated)}</td>
                  <td>{formatCount(c.leftOut)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function resultTitle(s: ImportStatus): string {
  if (s.status === 'done') return s.dryRun ? 'Dry run finished: the file can be imported' : 'Import finished';
  return s.dryRun ? 'Dry run finished: the file has problems' : 'Import failed: nothing was imported';
}

function Progress({ status }: { status?: ImportStatus }) {
  return (
    <JobProgress
      label="Import progress"
      done={status?.progress.done ?? 0}
      total={status?.progress.total ?? 0}
      unit="row"
      verb="done"
      waiting={status?.status === 'queued' || !status ? 'Waiting for its turn…' : 'Reading the file…'}
    />
  );
}

function Counts({ s }: { s: ImportStatus }) {
  const would = s.dryRun ? ' (would be)' : '';
  return (
    <dl className="import-counts" aria-label="What the import did">
      <div>
        <dt>Created{would}</dt>
        <dd>{formatCount(s.created)}</dd>
      </div>
      <div>
        {/* A dry run does not compare contents: these rows match a case, and only those that differ will change. */}
        <dt>{s.dryRun ? 'Matched by Legacy ID' : 'Updated'}</dt>
        <dd>{formatCount(s.updated)}</dd>
      </div>
      <div>
        <dt>Skipped</dt>
        <dd>{formatCount(s.skipped)}</dd>
      </div>
    </dl>
  );
}

/** Only QA Sphere files hold templates, and the counts are of the file's rows: say so where "Created 1" may surprise. */
function CountsNote({ s }: { s: ImportStatus }) {
  if (!FORMATS[s.format].templates || s.created + s.updated === 0) return null;
  return (
    <p className="import-counts-note">
      The counts are of the file’s rows: a template counts once, not the filled test cases its Parameter
      Values make.
    </p>
  );
}

/** The file's rows with what was said about each: the problems, or the warnings. */
function RowTable({
  s,
  rows,
  label,
  caption,
}: {
  s: ImportStatus;
  rows: ImportStatus['errors'];
  label: string;
  caption: string;
}) {
  const unit = FORMATS[s.format].unit;
  return (
    <div className="import-table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className="import-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Field</th>
            <th scope="col">Problem</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e, i) => (
            <tr key={i}>
              <td>{e.row === 0 ? 'The file' : `${unit} ${formatCount(e.row)}`}</td>
              <td>{fieldName(e.field)}</td>
              <td>{e.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
