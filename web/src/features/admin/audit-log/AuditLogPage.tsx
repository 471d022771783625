import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { isApiError } from '../../../api/client';
import { usersQuery } from '../../../api/queries';
import { Button } from '../../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatCount } from '../../../lib/format';
import { ActionPicker } from './ActionPicker';
import { auditActionsQuery, auditLogQuery, PAGE_SIZE } from './api';
import { EventList } from './EventList';
import { exportHref, type AuditLogSearch } from './search';
import './audit-log.css';

/** The audit log (admin): who did what and when, filtered by action, person and days; exported as CSV. */
export function AuditLogPage() {
  useDocumentTitle('Audit log');
  return <AuditLog />;
}

const API_FIELD: Record<string, keyof Draft> = { action: 'action', userId: 'user', from: 'from', to: 'to' };

interface Draft {
  action: string;
  user: string;
  from: string;
  to: string;
}
const draftOf = (s: AuditLogSearch): Draft => ({
  action: s.action ?? '',
  user: s.user ? String(s.user) : '',
  from: s.from ?? '',
  to: s.to ?? '',
});

function AuditLog() {
  const search = useSearch({ from: '/app/admin/audit-log' });
  const navigate = useNavigate({ from: '/admin/audit-log' });
  const page = useQuery(auditLogQuery(search));
  const people = useQuery(usersQuery());
  const actions = useQuery(auditActionsQuery());
  const labels = new Map((actions.data?.actions ?? []).map((a) => [a.action, a.label]));
  const [draft, setDraft] = useState<Draft>(() => draftOf(search));
  const [shownFor, setShownFor] = useState(search);
  const [localErrors, setLocalErrors] = useState<Partial<Record<keyof Draft, string>>>({});
  // The address changed (back, a shared link): the form shows what the list shows.
  if (shownFor !== search) {
    setShownFor(search);
    setDraft(draftOf(search));
  }
  // A refusal of the filters goes beside the field it is about; the typed filters stay.
  const apiErrors: Partial<Record<keyof Draft, string>> = {};
  if (isApiError(page.error, 400))
    for (const [field, message] of Object.entries(page.error.fieldErrors()))
      if (API_FIELD[field]) apiErrors[API_FIELD[field]] = message;
  const errors = { ...apiErrors, ...localErrors };
  const set = (name: keyof Draft, value: string) => {
    setDraft((d) => ({ ...d, [name]: value }));
    setLocalErrors(({ [name]: _gone, ...rest }) => rest);
  };

  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (draft.from && draft.to && draft.to < draft.from) {
      setLocalErrors({ to: 'The last day must be on or after the first day.' });
      return;
    }
    const action = draft.action
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .join(',');
    void navigate({
      search: {
        ...(action ? { action } : {}),
        ...(draft.user ? { user: Number(draft.user) } : {}),
        ...(draft.from ? { from: draft.from } : {}),
        ...(draft.to ? { to: draft.to } : {}),
        ...(search.order ? { order: search.order } : {}),
      },
    });
  };
  const { after: _after, before: _before, order, ...filters } = search;
  const oldestFirst = order === 'asc';
  const paged = !!(search.after || search.before);
  const filtered = Object.keys(filters).length > 0;
  const events = page.data?.events ?? [];

  return (
    <div className="page audit-log">
      <header className="page-header">
        <div>
          <h1 className="page-title">Audit log</h1>
          <p className="page-subtitle">
            Sign-ins and changes to the service
            {search.from ? '' : ', from the start of this month unless you choose a first day'}.
          </p>
        </div>
        <a className="btn btn-secondary" href={exportHref(search)} download>
          Export CSV
        </a>
      </header>
      <form className="panel audit-filters" aria-label="Filter the audit log" onSubmit={apply} noValidate>
        <Field
          label="Action"
          error={errors.action}
          hint="Every action the service records; choose several with Ctrl or Shift. None chosen: all of them."
        >
          {(id, describedBy) => (
            <ActionPicker
              id={id}
              describedBy={describedBy}
              invalid={!!errors.action}
              value={draft.action}
              actions={actions.data?.actions}
              onChange={(value) => set('action', value)}
            />
          )}
        </Field>
        <Field label="Person" error={errors.user}>
          {(id, describedBy) => (
            <select
              id={id}
              className="field-input"
              value={draft.user}
              aria-describedby={describedBy}
              aria-invalid={errors.user ? true : undefined}
              onChange={(e) => set('user', e.target.value)}
            >
              <option value="">Everyone</option>
              {draft.user && !people.data?.users.some((p) => String(p.id) === draft.user) && (
                <option value={draft.user}>Person #{draft.user}</option>
              )}
              {(people.data?.users ?? []).map((p) => (
                <option key={p.id} value={String(p.id)}>
                  {p.name} ({p.email})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="First day" error={errors.from}>
          {(id, describedBy) => (
            <input
              id={id}
              type="date"
              className="field-input"
              value={draft.from}
              aria-describedby={describedBy}
              aria-invalid={errors.from ? true : undefined}
              onChange={(e) => set('from', e.target.value)}
            />
          )}
        </Field>
        <Field label="Last day" error={errors.to}>
          {(id, describedBy) => (
            <input
              id={id}
              type="date"
              className="field-input"
              value={draft.to}
              aria-describedby={describedBy}
              aria-invalid={errors.to ? true : undefined}
              onChange={(e) => set('to', e.target.value)}
            />
          )}
        </Field>
        <div className="audit-filter-actions">
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
          {filtered && (
            <Link className="btn btn-ghost" to="/admin/audit-log" search={order ? { order } : {}}>
              Clear filters
            </Link>
          )}
        </div>
      </form>
      <section className="panel" aria-labelledby="audit-events" aria-busy={page.isFetching}>
        <div className="audit-list-head">
          <h2 id="audit-events" className="panel-title">
            {page.isPending
              ? 'Events'
              : `${formatCount(events.length)} ${events.length === 1 ? 'event' : 'events'}${paged ? ' on this page' : ''}`}
          </h2>
          <OrderChoice
            oldestFirst={oldestFirst}
            onChange={(asc) =>
              void navigate({ search: { ...filters, ...(asc ? { order: 'asc' as const } : {}) } })
            }
          />
        </div>
        {page.isPending ? (
          <Loading label="Loading the audit log…" />
        ) : page.isError && !isApiError(page.error, 400) ? (
          <ErrorState
            title="The audit log could not be loaded."
            error={page.error}
            onRetry={() => page.refetch()}
          />
        ) : page.isError ? (
          <p className="muted">Correct the filters above to see events.</p>
        ) : events.length === 0 ? (
          <EmptyState title={filtered ? 'No events match these filters.' : 'No events yet this month.'} />
        ) : (
          <EventList events={events} labels={labels} />
        )}
        <Pager search={search} last={page.data?.after} full={events.length === PAGE_SIZE} />
      </section>
    </div>
  );
}

/** Newest or oldest first: a new order starts again at its first page. */
function OrderChoice({ oldestFirst, onChange }: { oldestFirst: boolean; onChange: (asc: boolean) => void }) {
  const id = useId();
  return (
    <div className="audit-order">
      <label className="field-label" htmlFor={id}>
        Order
      </label>
      <select
        id={id}
        className="field-input"
        value={oldestFirst ? 'asc' : 'desc'}
        onChange={(e) => onChange(e.target.value === 'asc')}
      >
        <option value="desc">Newest first</option>
        <option value="asc">Oldest first</option>
      </select>
    </div>
  );
}

/**
 * Next page by the cursor (the last event shown: older ones newest first, newer ones oldest first); the browser's
 * Back returns to the previous one (each page is its own address).
 */
function Pager({ search, last, full }: { search: AuditLogSearch; last?: number; full: boolean }) {
  const paged = !!(search.after || search.before);
  if (!paged && !full) return null;
  const next = search.order === 'asc' ? { after: last } : { before: last };
  return (
    <nav className="audit-pager" aria-label="Pages of the audit log">
      {paged ? (
        <Link
          className="btn btn-ghost"
          to="/admin/audit-log"
          search={{ ...search, after: undefined, before: undefined }}
        >
          First page
        </Link>
      ) : null}
      {full && last ? (
        <Link className="btn btn-secondary" to="/admin/audit-log" search={{ ...search, ...next }}>
          {search.order === 'asc' ? `Next ${PAGE_SIZE} events` : `${PAGE_SIZE} older events`}
        </Link>
      ) : null}
    </nav>
  );
}

function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: (id: string, describedBy: string | undefined) => ReactNode;
}) {
  const id = useId();
  const describedBy = [error && `${id}-err`, hint && `${id}-hint`].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {children(id, describedBy)}
      {error && (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      )}
      {hint && (
        <span id={`${id}-hint`} className="field-description">
          {hint}
        </span>
      )}
    </div>
  );
}
