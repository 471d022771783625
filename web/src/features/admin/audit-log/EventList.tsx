import { Fragment, useState } from 'react';
import { formatDateTime, formatFullDateTime } from '../../../lib/format';
import type { AuditEvent } from './api';

/** The page's events, one row each; a row opens in place to show everything recorded with it. */
export function EventList({ events, labels }: { events: AuditEvent[]; labels: Map<string, string> }) {
  const [open, setOpen] = useState<number>();
  return (
    <ul className="audit-list" aria-label="Audit events">
      {events.map((e) => {
        const isOpen = open === e.id;
        return (
          <li key={e.id} className="audit-item">
            <button
              type="button"
              className="audit-row"
              aria-expanded={isOpen}
              aria-controls={`audit-event-${e.id}`}
              onClick={() => setOpen(isOpen ? undefined : e.id)}
            >
              <span className="audit-chevron" aria-hidden="true">
                {isOpen ? '▾' : '▸'}
              </span>
              <time className="audit-when" dateTime={e.createdAt} title={formatFullDateTime(e.createdAt)}>
                {formatDateTime(e.createdAt)}
              </time>
              <span className="audit-action">
                {labels.get(e.action) ?? e.action} <code>{e.action}</code>
              </span>
              <span className="audit-who">{e.user ? e.user.name : 'The service'}</span>
            </button>
            {isOpen && <EventDetails event={e} />}
          </li>
        );
      })}
    </ul>
  );
}

function EventDetails({ event: e }: { event: AuditEvent }) {
  const meta = Object.entries(e.meta ?? {});
  return (
    <div id={`audit-event-${e.id}`} className="audit-details" role="region" aria-label={`Event ${e.id}`}>
      <dl className="audit-dl">
        <dt>Event</dt>
        <dd>#{e.id}</dd>
        <dt>When</dt>
        <dd>{formatFullDateTime(e.createdAt)}</dd>
        <dt>Person</dt>
        <dd>{e.user ? `${e.user.name} (${e.user.email})` : 'The service (no person)'}</dd>
        <dt>Address</dt>
        <dd>{e.ip || '—'}</dd>
        <dt>Browser or client</dt>
        <dd className="audit-wrap">{e.userAgent || '—'}</dd>
        {meta.map(([k, v]) => (
          <Fragment key={k}>
            <dt>
              <code>{k}</code>
            </dt>
            <dd className="audit-wrap">{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
          </Fragment>
        ))}
      </dl>
      {meta.length === 0 && <p className="muted">No other details were recorded with this event.</p>}
    </div>
  );
}
