import { useQuery } from '@tanstack/react-query';
import { runLogsQuery } from '../api';
import { SafeHtml } from '../../../components/rich-text/SafeHtml';
import { formatCount, formatDateTime } from '../../../lib/format';

/** The run's logs, newest first; nothing when there are none. */
export function RunLogs({ code, runId }: { code: string; runId: number }) {
  const logs = useQuery(runLogsQuery(code, runId));
  if (!logs.data || logs.data.length === 0) return null;
  return (
    <section className="panel run-logs" aria-labelledby="run-logs-title">
      <h2 id="run-logs-title" className="panel-title">
        Run logs <span className="count">{formatCount(logs.data.length)}</span>
      </h2>
      <ol className="run-results" reversed>
        {[...logs.data].reverse().map((l) => (
          <li key={l.id}>
            <span className="muted">{formatDateTime(l.createdAt)}</span>
            <SafeHtml html={l.comment} />
          </li>
        ))}
      </ol>
    </section>
  );
}
