import { useId } from 'react';
import { Button } from '../../components/Button';
import { formatDateTime } from '../../lib/format';
import type { FailureGroup } from './api';
import { failWith } from './words';

/**
 * One failure group of the run: what fails and how many cases, whether it is new or known, its cases when
 * expanded (each opens on the run page), and its actions for those who may record results.
 */
export function FailureGroupItem({
  code,
  group,
  open,
  onToggle,
  comparedWith,
  statusName,
  canTriage,
  busy,
  onOpenCase,
  onLink,
  onMarkKnown,
  onUnmarkKnown,
}: {
  code: string;
  group: FailureGroup;
  open: boolean;
  onToggle: () => void;
  comparedWith: number | null;
  statusName: (id: string) => string;
  canTriage: boolean;
  busy: boolean;
  onOpenCase: (tcaseId: string) => void;
  onLink: () => void;
  onMarkKnown: () => void;
  onUnmarkKnown: () => void;
}) {
  const id = useId();
  const known = group.known;
  return (
    <li className="triage-group" data-signature={group.signature}>
      <div className="triage-group-head">
        <button
          type="button"
          className="triage-toggle"
          aria-expanded={open}
          aria-controls={open ? `${id}-cases` : undefined}
          onClick={onToggle}
        >
          <span className="triage-chevron" aria-hidden="true" />
          {/* Labels are plain text from the service (messages may quote markup): React writes them as text. */}
          <span id={`${id}-what`} className="triage-what">
            {failWith(group.count)} <code className="triage-label">{group.label}</code>
          </span>
        </button>
        <span className="triage-badges">
          {group.isNew && comparedWith !== null && (
            <span className="badge badge-new">New since run {comparedWith}</span>
          )}
          {known && <span className="badge badge-known">Known</span>}
        </span>
      </div>
      {known && (
        <p className="triage-known muted">
          Marked known{known.by ? ` by ${known.by.name}` : ''} on {formatDateTime(known.at)}
          {known.note ? `: ${known.note}` : ''}
        </p>
      )}
      {canTriage && (
        <div className="triage-actions" role="group" aria-labelledby={`${id}-what`}>
          <Button onPress={onLink}>Link this defect to all</Button>
          {known ? (
            <Button variant="ghost" isDisabled={busy} onPress={onUnmarkKnown}>
              Not known any more
            </Button>
          ) : (
            <Button variant="ghost" isDisabled={busy} onPress={onMarkKnown}>
              Mark all as known
            </Button>
          )}
        </div>
      )}
      {open && (
        <ul id={`${id}-cases`} className="triage-cases" aria-labelledby={`${id}-what`}>
          {group.cases.map((c) => (
            <li key={c.tcaseId}>
              <button type="button" className="triage-case" onClick={() => onOpenCase(c.tcaseId)}>
                <span className="project-code">
                  {code}-{c.seq}
                </span>{' '}
                <span className="triage-case-title">{c.title}</span>
              </button>
              <span className="muted triage-case-status">{statusName(c.status)}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
