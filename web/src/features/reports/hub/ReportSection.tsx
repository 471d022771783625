import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Button } from '../../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { CsvLink } from '../parts/parts';

/** The most rows one section asks for (the API's `limit` cap). */
export const MAX_LIMIT = 5000;

/**
 * One report of the page: its heading (the in-page nav's target), what it looks at, its CSV, and its data
 * once loaded — a loading line, the error with "Try again", or what to do when there is nothing yet.
 */
export function ReportSection<T>({
  id,
  title,
  about,
  csv,
  query,
  isEmpty,
  empty,
  controls,
  children,
}: {
  id: string;
  title: string;
  about: ReactNode;
  csv: string;
  query: UseQueryResult<T>;
  isEmpty: (data: T) => boolean;
  empty: { title: string; body: ReactNode };
  controls?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  return (
    <section className="panel rep-section" aria-labelledby={`${id}-title`} id={id}>
      <div className="rep-section-head">
        <div>
          <h2 id={`${id}-title`} className="panel-title rep-section-title" tabIndex={-1}>
            {title}
          </h2>
          <p className="muted rep-note">{about}</p>
        </div>
        {query.data !== undefined && !isEmpty(query.data) && (
          <CsvLink href={csv} label={`Download CSV: ${title}`} />
        )}
      </div>
      {controls}
      {query.isPending ? (
        <Loading label={`Loading ${title.toLowerCase()}…`} />
      ) : query.isError ? (
        <ErrorState
          title={`${title} could not be loaded.`}
          error={query.error}
          onRetry={() => query.refetch()}
        />
      ) : isEmpty(query.data) ? (
        <EmptyState title={empty.title}>{empty.body}</EmptyState>
      ) : (
        children(query.data)
      )}
    </section>
  );
}

/** "Show more" under a list cut at `limit` rows (the report's first rows are its most telling). */
export function MoreRows({
  shown,
  limit,
  onMore,
}: {
  shown: number;
  limit: number;
  onMore: (limit: number) => void;
}) {
  if (shown < limit || limit >= MAX_LIMIT) return null;
  const next = Math.min(limit * 5, MAX_LIMIT);
  return (
    <div className="rep-more no-print">
      <span className="muted">The first {shown} are shown.</span>
      <Button variant="ghost" onPress={() => onMore(next)}>
        Show up to {next}
      </Button>
    </div>
  );
}

/** A test case as its key and title, linked to its page. */
export function CaseLink({ code, seq, title }: { code: string; seq: number; title?: string }) {
  return (
    <Link to="/project/$code/tcase/$seq" params={{ code, seq: String(seq) }} className="rep-case">
      <span className="rep-case-key">
        {code}-{seq}
      </span>
      {title !== undefined && <span className="rep-case-title">{title}</span>}
    </Link>
  );
}

/** A link out (an issue, a requirement), only when it is a web address: anything else is shown as text. */
export function OutLink({ url, text }: { url: string; text: string }) {
  if (!/^https?:\/\//i.test(url)) return <span>{text || url}</span>;
  return (
    <a href={url} target="_blank" rel="noreferrer noopener" className="rep-out">
      {text || url}
    </a>
  );
}
