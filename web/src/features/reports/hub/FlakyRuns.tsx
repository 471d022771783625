import { Link } from '@tanstack/react-router';
import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';
import { formatCount, formatDateTime } from '../../../lib/format';
import type { FlakyReport } from '../api';

type Configuration = FlakyReport['tcases'][number]['configurations'][number];

/** A flaky score (0–1) as a person reads it: a percentage of the weighted changes that flipped. */
export const formatScore = (score: number) => `${Math.round(score * 100)}%`;

/**
 * The runs that show a case's flips, per configuration (the most flaky first): the configuration, its score and
 * flips, then each run oldest first as a small link coloured by its status, named in words for screen readers and
 * in its tooltip.
 */
export function FlakyRuns({
  code,
  configurations,
  statuses,
}: {
  code: string;
  configurations: Configuration[];
  statuses: StatusSetting[];
}) {
  const nameOf = (id: string) => statuses.find((s) => s.id === id);
  return (
    <ul className="rep-flaky-configs">
      {configurations.map((c) => {
        const title =
          c.configurationTitle ?? (c.configurationId ? 'Deleted configuration' : 'No configuration');
        return (
          <li key={c.configurationId ?? ''}>
            <span className="rep-flaky-config">
              {title}: {formatScore(c.score)}, {formatCount(c.flips)} {c.flips === 1 ? 'flip' : 'flips'}
            </span>
            <ol className="rep-flaky-runs" aria-label={`Runs of ${title}, oldest first`}>
              {c.history.map((h) => {
                const status = nameOf(h.status);
                const label = `${h.title}, ${formatDateTime(h.createdAt)}: ${status?.name ?? h.status}`;
                return (
                  <li key={h.runId}>
                    <Link
                      to="/project/$code/run/$runId"
                      params={{ code, runId: String(h.runId) }}
                      className="rep-flaky-run"
                      aria-label={label}
                      title={label}
                      style={{ background: STATUS_FILL[status?.color ?? 'gray'] }}
                    />
                  </li>
                );
              })}
            </ol>
          </li>
        );
      })}
    </ul>
  );
}
