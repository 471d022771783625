import { useDeferredValue, useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { PRIORITIES, PRIORITY_NAMES } from '../../../api/priorities';
import { projectTagsQuery } from '../../../api/queries';
import { Button } from '../../../components/Button';
import { pickableCasesQuery, type QueryPlan } from '../api';
import { formatCountOf } from '../../../lib/format';
import { FolderPicker } from './FolderPicker';

const toggle = <T,>(list: T[], item: T) =>
  list.includes(item) ? list.filter((x) => x !== item) : [...list, item];

/** Cases picked one by one: a search of the repository, each match a checkbox. */
function CasePicker({ code, plan, onChange, index }: BuilderProps) {
  const id = useId();
  const [term, setTerm] = useState('');
  const search = useDeferredValue(term.trim());
  const found = useQuery({ ...pickableCasesQuery(code, search), placeholderData: keepPreviousData });
  const picked = plan.tcaseIds ?? [];
  const cases = found.data?.data ?? [];
  return (
    <div className="plan-group">
      <label className="field-label" htmlFor={`${id}-search`}>
        Find cases to pick
      </label>
      <input
        id={`${id}-search`}
        type="search"
        className="field-input plan-search"
        value={term}
        onChange={(e) => setTerm(e.target.value)}
        placeholder="Title contains…"
      />
      <div
        className="plan-scroll"
        role="group"
        aria-label={`Matching cases for plan ${index + 1}`}
        aria-busy={found.isFetching}
      >
        {found.isPending ? (
          <p className="muted">Searching…</p>
        ) : found.isError ? (
          <p className="field-error">The cases could not be searched: {found.error.message}</p>
        ) : cases.length === 0 ? (
          <p className="muted">{search ? `No case title contains “${search}”.` : 'No test cases yet.'}</p>
        ) : (
          cases.map((c) => (
            <label key={c.id} className="plan-option plan-case">
              <input
                type="checkbox"
                checked={picked.includes(c.id)}
                onChange={() => onChange({ ...plan, tcaseIds: toggle(picked, c.id) })}
              />
              <span className="project-code">
                {code.toUpperCase()}-{c.seq}
              </span>{' '}
              {c.title}
            </label>
          ))
        )}
        {(found.data?.total ?? 0) > cases.length && (
          <p className="muted">
            {found.data!.total - cases.length} more match: type more of the title to narrow the search.
          </p>
        )}
      </div>
      <p className="plan-picked">
        {formatCountOf(picked.length, 'case')} picked
        {picked.length > 0 && (
          <Button variant="ghost" onPress={() => onChange({ ...plan, tcaseIds: [] })}>
            Clear the picked cases
          </Button>
        )}
      </p>
    </div>
  );
}

interface BuilderProps {
  code: string;
  plan: QueryPlan;
  onChange: (p: QueryPlan) => void;
  index: number;
}

/**
 * A query plan: by folders, tags and priorities (conditions combine with AND), or — for runs that are not live —
 * cases picked one by one. The preview beside it shows what the plan selects as it changes.
 */
export function PlanBuilder({
  code,
  plan,
  onChange,
  index,
  allowPick = true,
}: BuilderProps & { allowPick?: boolean }) {
  const tags = useQuery(projectTagsQuery(code));
  const picking = allowPick && plan.tcaseIds !== undefined;
  const n = index + 1;
  const mode = useId();
  return (
    <fieldset className="plan-builder">
      <legend>Cases of plan {n}</legend>
      {allowPick && (
        <div className="plan-options" role="radiogroup" aria-label={`How plan ${n} chooses its cases`}>
          <label className="plan-option">
            <input type="radio" name={mode} checked={!picking} onChange={() => onChange({})} />
            By folders, tags and priorities
          </label>
          <label className="plan-option">
            <input type="radio" name={mode} checked={picking} onChange={() => onChange({ tcaseIds: [] })} />
            Pick cases
          </label>
        </div>
      )}
      {picking ? (
        <CasePicker code={code} plan={plan} onChange={onChange} index={index} />
      ) : (
        <>
          <div className="plan-group">
            <span className="field-label">Folders (with their subfolders)</span>
            {/* The whole tree: a picker of the first thousand folders would silently leave the others out. */}
            <FolderPicker
              code={code}
              label={`Folders of plan ${n}`}
              chosen={plan.folderIds ?? []}
              onChange={(ids) => onChange({ ...plan, folderIds: ids.length ? ids : undefined })}
            />
          </div>
          {(tags.data?.length ?? 0) > 0 && (
            <div className="plan-group" role="group" aria-label={`Tags of plan ${n}`}>
              <span className="field-label">Tags</span>
              <div className="plan-options">
                {tags.data!.map((t) => (
                  <label key={t.id} className="plan-option">
                    <input
                      type="checkbox"
                      checked={(plan.tagIds ?? []).includes(t.id)}
                      onChange={() => onChange({ ...plan, tagIds: toggle(plan.tagIds ?? [], t.id) })}
                    />
                    {t.title}
                  </label>
                ))}
              </div>
            </div>
          )}
          <div className="plan-group" role="group" aria-label={`Priorities of plan ${n}`}>
            <span className="field-label">Priorities</span>
            <div className="plan-options">
              {PRIORITIES.map((p) => (
                <label key={p} className="plan-option">
                  <input
                    type="checkbox"
                    checked={(plan.priorities ?? []).includes(p)}
                    onChange={() => onChange({ ...plan, priorities: toggle(plan.priorities ?? [], p) })}
                  />
                  {PRIORITY_NAMES[p]}
                </label>
              ))}
            </div>
          </div>
        </>
      )}
    </fieldset>
  );
}
