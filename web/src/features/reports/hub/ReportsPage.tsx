import { useQuery } from '@tanstack/react-query';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { statusesQuery } from '../../../api/queries';
import { recordable } from '../../../api/statuses';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { CoverageSection } from './CoverageSection';
import { FoldersSection } from './FoldersSection';
import { DefectsSection, FailingSection, FlakySection, SlowestSection } from './ListSections';
import { DEFAULT_LAST, LAST_CHOICES } from './search';
import { TrendSection } from './TrendSection';
import '../parts/report-pages.css';
import '../print.css';
import { formatDateTime } from '../../../lib/format';

const SECTIONS = [
  ['trend', 'Pass rate trend'],
  ['failing', 'Most failing'],
  ['flaky', 'Flaky'],
  ['slowest', 'Slowest'],
  ['folders', 'By folder'],
  ['coverage', 'Coverage'],
  ['defects', 'Defects'],
] as const;

/**
 * `/project/{CODE}/reports`: every list report of the project in full, one section each, over the last N runs
 * chosen once for the page (in the address). The section links jump to a report and move the focus to its
 * heading, so the keyboard goes on from there.
 */
export function ReportsPage() {
  const { code } = useParams({ from: '/app/project/$code/reports' });
  const search = useSearch({ from: '/app/project/$code/reports' });
  const navigate = useNavigate({ from: '/project/$code/reports' });
  const project = code.toUpperCase();
  useDocumentTitle(`Reports · ${project}`);
  const statuses = recordable(useQuery(statusesQuery()).data);
  const last = search.last ?? DEFAULT_LAST;
  const props = { code: project, last, statuses };
  return (
    <div className="page rep-page report">
      <div className="page-header rep-header">
        <h1 className="page-title">Reports</h1>
      </div>
      <div className="rep-toolbar no-print">
        <nav aria-label="Reports on this page" className="rep-jump">
          {SECTIONS.map(([id, label]) => (
            <a
              key={id}
              href={`#${id}`}
              onClick={(e) => {
                // The heading takes the focus, so Tab goes on inside the report rather than from the top.
                const heading = document.getElementById(`${id}-title`);
                if (!heading) return;
                e.preventDefault();
                heading.focus({ preventScroll: true });
                heading.closest('section')?.scrollIntoView({ block: 'start' });
              }}
            >
              {label}
            </a>
          ))}
        </nav>
        <label className="rep-last">
          <span className="field-label">Runs looked at</span>
          <select
            className="field-input"
            value={last}
            onChange={(e) => {
              const n = Number(e.target.value);
              void navigate({
                search: (s) => ({ ...s, last: n === DEFAULT_LAST ? undefined : n }),
                replace: true,
                resetScroll: false,
              });
            }}
          >
            {LAST_CHOICES.map((n) => (
              <option key={n} value={n}>
                Last {n}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="print-only rep-print-note">
        {project} · the last {last} runs · printed {formatDateTime(new Date())}
      </p>
      <TrendSection {...props} search={search} />
      <FailingSection {...props} />
      <FlakySection {...props} />
      <SlowestSection {...props} />
      <FoldersSection {...props} />
      <CoverageSection code={project} statuses={statuses} />
      <DefectsSection {...props} />
    </div>
  );
}
