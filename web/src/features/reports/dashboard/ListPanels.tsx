import type { StatusSetting } from '../../../api/statuses';
import { EmptyState, Loading } from '../../../components/Status';
import type { DashboardData } from '../api';
import { ChartPanel, DataTable } from './ChartPanel';
import { formatCount, formatDate, formatDuration } from '../../../lib/format';
import { pathText } from './chart';
import { caseRef, CaseLink, FullListLink } from './links';
import { StackedBar } from './StackedBar';
import { FolderPath } from '../../../components/FolderPath';

const TOP = 5;
const FOLDERS = 8;

interface Common {
  code: string;
  linked: boolean;
  statuses: StatusSetting[];
}

/** Failures by folder over the last runs: whole paths, one SVG bar per folder on one scale. */
export function FoldersPanel({
  code,
  linked,
  statuses,
  folders,
}: Common & { folders: DashboardData['folders'] | undefined }) {
  const list = (folders?.folders ?? []).slice(0, FOLDERS);
  const max = Math.max(0, ...list.map((f) => f.counts.all));
  const failing = list.filter((f) => f.failures > 0).length;
  return (
    <ChartPanel
      id="dash-folders"
      title="Failures by folder"
      className="dash-span-6"
      chart={
        folders === undefined ? (
          <Loading label="Loading the folders…" />
        ) : list.length === 0 ? (
          <EmptyState title="No run has cases yet." />
        ) : (
          <>
            <p className="muted dash-note">
              {failing === 0
                ? 'No folder has a failure in the last 20 runs.'
                : `${formatCount(failing)} of the ${formatCount(list.length)} folders shown have failures in the last 20 runs.`}
            </p>
            <ul className="dash-folders" aria-label="Folders, most failures first">
              {list.map((f) => (
                <li key={f.path.join('\u0000')} className="dash-folder">
                  <FolderPath className="dash-folder-path" path={f.path} max={40} empty="(no folder)" />
                  <StackedBar counts={f.counts} statuses={statuses} max={max} label={pathText(f.path)} />
                  <span className="dash-folder-n">
                    <strong>{formatCount(f.failures)}</strong> failing of {formatCount(f.results)} results
                  </span>
                </li>
              ))}
            </ul>
          </>
        )
      }
      table={
        list.length === 0 ? null : (
          <DataTable
            caption="Run cases per folder in the last 20 runs"
            columns={['Folder', 'Failures', 'Results', 'Cases']}
            rows={list.map((f) => ({
              key: f.path.join('\u0000'),
              head: pathText(f.path),
              cells: [formatCount(f.failures), formatCount(f.results), formatCount(f.counts.all)],
            }))}
          />
        )
      }
      footer={linked && list.length > 0 && <FullListLink code={code} section="folders" label="All folders" />}
    />
  );
}

interface TopItem {
  tcaseId: string;
  seq: number;
  title: string;
}

/** One of the top-N case lists (most failing, flaky, slowest): each case links to itself, the list to all. */
function TopList<T extends TopItem>({
  code,
  linked,
  id,
  title,
  items,
  figure,
  figureHead,
  detail,
  empty,
}: Omit<Common, 'statuses'> & {
  id: string;
  title: string;
  items: T[] | undefined;
  figure: (t: T) => string;
  figureHead: string;
  detail: (t: T) => string;
  empty: string;
}) {
  const top = (items ?? []).slice(0, TOP);
  return (
    <section aria-labelledby={`dash-${id}`} className="panel dash-panel dash-span-2">
      <div className="dash-panel-head">
        <h2 id={`dash-${id}`} className="panel-title">
          {title}
        </h2>
      </div>
      {items === undefined ? (
        <Loading label={`Loading ${title.toLowerCase()}…`} />
      ) : top.length === 0 ? (
        <p className="muted dash-note">{empty}</p>
      ) : (
        <ol className="dash-top" aria-label={title}>
          {top.map((t) => (
            <li key={t.tcaseId}>
              <span className="dash-top-title">
                <CaseLink code={code} seq={t.seq} linked={linked}>
                  <span className="dash-ref">{caseRef(code, t.seq)}</span> {t.title}
                </CaseLink>
              </span>
              <span className="dash-top-figure" title={figureHead}>
                {figure(t)}
              </span>
              <span className="muted dash-top-detail">{detail(t)}</span>
            </li>
          ))}
        </ol>
      )}
      {linked && top.length > 0 && (
        <FullListLink code={code} section={id} label={`All ${title.toLowerCase()}`} />
      )}
    </section>
  );
}

export function TopPanels({ code, linked, statuses, data }: Common & { data: Partial<DashboardData> }) {
  const nameOf = (id: string) => statuses.find((s) => s.id === id)?.name.toLowerCase() ?? id;
  return (
    <>
      <TopList
        code={code}
        linked={linked}
        id="failing"
        title="Most failing"
        items={data.failing?.tcases}
        figureHead="Failures"
        figure={(t) => `${formatCount(t.failures)} ✕`}
        detail={(t) =>
          `failed in ${formatCount(t.failures)} of ${formatCount(t.runs)} runs · last ${formatDate(t.lastFailedAt)}`
        }
        empty="No case failed in the last 20 runs."
      />
      <TopList
        code={code}
        linked={linked}
        id="flaky"
        title="Flaky"
        items={data.flaky?.tcases}
        figureHead="Flips"
        figure={(t) => `${formatCount(t.flips)} ⇄`}
        detail={(t) =>
          `${formatCount(t.flips)} flips in ${formatCount(t.runs)} runs · now ${nameOf(t.lastStatus)}`
        }
        empty="No case flipped between passed and failed in the last 20 runs."
      />
      <TopList
        code={code}
        linked={linked}
        id="slowest"
        title="Slowest"
        items={data.slowest?.tcases}
        figureHead="Median time"
        figure={(t) => formatDuration(t.medianMs)}
        detail={(t) =>
          `median of ${formatCount(t.samples)} ${t.samples === 1 ? 'result' : 'results'} · longest ${formatDuration(t.maxMs)}`
        }
        empty="No result recorded a time in the last 20 runs."
      />
    </>
  );
}
