import { useQuery } from '@tanstack/react-query';
import { formatCount } from '../../lib/format';
import { runFailureGroupsQuery } from './api';
import { failuresSummary } from './words';
import './triage.css';

/**
 * The run report's failure groups, to read: what fails, on how many cases, new since the comparable run or known.
 * Triage itself (linking, marking known) is on the run page.
 */
export function FailureGroupsSummary({ code, runId }: { code: string; runId: number }) {
  const groups = useQuery(runFailureGroupsQuery(code, runId));
  return (
    <section aria-labelledby="failure-groups-title" className="panel report-section">
      <h2 id="failure-groups-title" className="panel-title">
        Failure groups{' '}
        {groups.data && <span className="count">{formatCount(groups.data.groups.length)}</span>}
      </h2>
      {groups.isPending ? (
        <p className="muted">Grouping the failures…</p>
      ) : groups.isError ? (
        <p className="field-error">The failures could not be grouped: {groups.error.message}</p>
      ) : groups.data.groups.length === 0 ? (
        <p className="muted">No case of this run is failed or blocked.</p>
      ) : (
        <>
          <p className="muted" data-testid="failure-groups-summary">
            {failuresSummary(groups.data.groups)}
            {groups.data.comparedWith === null
              ? '; no earlier run to compare with.'
              : `; “new” means not failing so in run ${groups.data.comparedWith}.`}
          </p>
          <div className="table-scroll" role="region" aria-labelledby="failure-groups-title" tabIndex={0}>
            <table className="report-table triage-table">
              <thead>
                <tr>
                  <th scope="col">Fails with</th>
                  <th scope="col" className="num">
                    Cases
                  </th>
                  <th scope="col">New</th>
                  <th scope="col">Known</th>
                </tr>
              </thead>
              <tbody>
                {groups.data.groups.map((g) => (
                  <tr key={g.signature}>
                    <th scope="row">
                      <code className="triage-label">{g.label}</code>
                    </th>
                    <td className="num">{formatCount(g.count)}</td>
                    <td>{groups.data.comparedWith !== null && g.isNew ? 'New' : '—'}</td>
                    <td>{g.known ? `Known${g.known.by ? ` (${g.known.by.name})` : ''}` : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
