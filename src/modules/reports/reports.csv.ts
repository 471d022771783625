import { toCsv, type CsvCell } from '../../lib/csv.js';
import { STATUS_IDS } from '../../lib/statuses.js';
import type {
  CoverageReport,
  DefectsReport,
  FailingReport,
  FlakyReport,
  MilestoneReport,
  PlanReport,
  ReportCounts,
  RunReport,
  SlowestReport,
  TrendReport,
} from './reports.schemas.js';

/** Each report as CSV: one row per item of its main list (docs/api-decisions.md#reports). */

const COUNT_HEADER = ['all', ...STATUS_IDS];
const countCells = (c: ReportCounts): CsvCell[] => [c.all, ...STATUS_IDS.map((s) => c[s])];
/** Lists inside one cell are separated by a space (seqs, run ids) or " / " (folder paths). */
const joined = (items: (string | number)[], sep = ' ') => items.join(sep);

export const trendCsv = (r: TrendReport) =>
  toCsv(
    ['key', 'label', 'at', ...COUNT_HEADER, 'passRate'],
    r.points.map((p) => [p.key, p.label, p.at, ...countCells(p.counts), p.passRate]),
  );

/** The run report's items are its failures (the figures above them are in the JSON answer). */
export const runCsv = (r: RunReport) =>
  toCsv(
    ['seq', 'tcaseId', 'title', 'folderPath', 'status', 'comment', 'links', 'author', 'at', 'newFailure'],
    r.failures.map((f) => [
      f.seq,
      f.tcaseId,
      f.title,
      joined(f.folderPath, ' / '),
      f.status,
      f.comment,
      joined(
        f.links.map((l) => l.url),
        ' ',
      ),
      f.author?.name,
      f.at,
      r.since === null ? null : r.since.newFailures.includes(f.seq),
    ]),
  );

export const flakyCsv = (r: FlakyReport) =>
  toCsv(
    ['seq', 'tcaseId', 'title', 'flips', 'runs', 'lastStatus'],
    r.tcases.map((t) => [t.seq, t.tcaseId, t.title, t.flips, t.runs, t.lastStatus]),
  );

export const failingCsv = (r: FailingReport) =>
  toCsv(
    ['seq', 'tcaseId', 'title', 'failures', 'runs', 'lastFailedAt'],
    r.tcases.map((t) => [t.seq, t.tcaseId, t.title, t.failures, t.runs, t.lastFailedAt]),
  );

export const slowestCsv = (r: SlowestReport) =>
  toCsv(
    ['seq', 'tcaseId', 'title', 'medianMs', 'maxMs', 'samples'],
    r.tcases.map((t) => [t.seq, t.tcaseId, t.title, t.medianMs, t.maxMs, t.samples]),
  );

export const defectsCsv = (r: DefectsReport) =>
  toCsv(
    ['url', 'text', 'tcases', 'runs', 'firstAt', 'lastAt'],
    r.defects.map((d) => [d.url, d.text, joined(d.tcases), joined(d.runs), d.firstAt, d.lastAt]),
  );

export const coverageCsv = (r: CoverageReport) =>
  toCsv(
    ['requirementId', 'text', 'url', 'tcases', ...COUNT_HEADER],
    r.requirements.map((q) => [
      q.id,
      q.text,
      q.url,
      joined(q.tcases.map((t) => t.seq)),
      ...countCells(q.counts),
    ]),
  );

const runsCsv = (runs: MilestoneReport['runs']) =>
  toCsv(
    ['runId', 'title', 'closed', ...COUNT_HEADER, 'passRate'],
    runs.map((r) => [r.id, r.title, r.closed, ...countCells(r.counts), r.passRate]),
  );

export const milestoneCsv = (r: MilestoneReport) => runsCsv(r.runs);
export const planCsv = (r: PlanReport) => runsCsv(r.runs);
