import { useId } from 'react';
import { Button } from '../../../components/Button';
import { SelectField } from '../../../components/SelectField';
import { ROLES, type GrantableRole } from './api';

export interface RoleRuleRow {
  group: string;
  role: GrantableRole;
}
export interface ProjectRuleRow {
  group: string;
  projectIds: string[];
}

const move = <T,>(list: T[], from: number, to: number): T[] => {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item!);
  return out;
};

function RuleButtons({
  index,
  count,
  what,
  onMove,
  onRemove,
}: {
  index: number;
  count: number;
  what: string;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  return (
    <div className="sso-rule-actions">
      <Button isDisabled={index === 0} onPress={() => onMove(index - 1)} aria-label={`Move ${what} up`}>
        Up
      </Button>
      <Button
        isDisabled={index === count - 1}
        onPress={() => onMove(index + 1)}
        aria-label={`Move ${what} down`}
      >
        Down
      </Button>
      <Button onPress={onRemove} aria-label={`Remove ${what}`}>
        Remove
      </Button>
    </div>
  );
}

function GroupInput({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="field-input"
        value={value}
        maxLength={255}
        required
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}

/** Group → role, in order: the first rule whose group the person is in gives their role at each sign-in. */
export function RoleRulesEditor({
  rules,
  onChange,
  error,
}: {
  rules: RoleRuleRow[];
  onChange: (rules: RoleRuleRow[]) => void;
  error?: string;
}) {
  const id = useId();
  const put = (i: number, rule: RoleRuleRow) => onChange(rules.map((r, j) => (j === i ? rule : r)));
  return (
    <fieldset className="adm-fieldset" aria-describedby={error ? `${id}-err` : `${id}-hint`}>
      <legend className="field-label">Role rules</legend>
      <p id={`${id}-hint`} className="field-description">
        In order: the first rule whose group the person is in gives their role, at every sign-in. No match
        keeps their role (a new account gets the default role). The owner&apos;s role never changes.
      </p>
      <ol className="sso-rules" aria-label="Role rules">
        {rules.map((r, i) => (
          <li key={i} className="sso-rule">
            <GroupInput
              label={`Group of role rule ${i + 1}`}
              value={r.group}
              onChange={(g) => put(i, { ...r, group: g })}
            />
            <SelectField
              label={`Role of rule ${i + 1}`}
              value={r.role}
              onChange={(v) => put(i, { ...r, role: v as GrantableRole })}
              options={ROLES.map((o) => ({ value: o.role, label: o.label }))}
            />
            <RuleButtons
              index={i}
              count={rules.length}
              what={`role rule ${i + 1}`}
              onMove={(to) => onChange(move(rules, i, to))}
              onRemove={() => onChange(rules.filter((_r, j) => j !== i))}
            />
          </li>
        ))}
      </ol>
      <Button className="sso-add" onPress={() => onChange([...rules, { group: '', role: 'user' }])}>
        Add a role rule
      </Button>
      {error && (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </fieldset>
  );
}

/** Group → projects: every rule whose group the person is in makes them a member of its projects. */
export function ProjectRulesEditor({
  rules,
  onChange,
  projects,
  error,
}: {
  rules: ProjectRuleRow[];
  onChange: (rules: ProjectRuleRow[]) => void;
  projects: { id: string; code: string; title: string }[];
  error?: string;
}) {
  const id = useId();
  const put = (i: number, rule: ProjectRuleRow) => onChange(rules.map((r, j) => (j === i ? rule : r)));
  return (
    <fieldset className="adm-fieldset" aria-describedby={error ? `${id}-err` : `${id}-hint`}>
      <legend className="field-label">Project rules</legend>
      <p id={`${id}-hint`} className="field-description">
        Every rule whose group the person is in makes them a member of its projects (memberships are added,
        never removed).
      </p>
      <ol className="sso-rules" aria-label="Project rules">
        {rules.map((r, i) => (
          <li key={i} className="sso-rule">
            <GroupInput
              label={`Group of project rule ${i + 1}`}
              value={r.group}
              onChange={(g) => put(i, { ...r, group: g })}
            />
            <fieldset className="adm-fieldset">
              <legend className="field-label">Projects of rule {i + 1}</legend>
              <div className="adm-checks">
                {projects.map((p) => (
                  <label key={p.id} className="checkbox-field">
                    <input
                      type="checkbox"
                      checked={r.projectIds.includes(p.id)}
                      onChange={(e) =>
                        put(i, {
                          ...r,
                          projectIds: e.target.checked
                            ? [...r.projectIds, p.id]
                            : r.projectIds.filter((x) => x !== p.id),
                        })
                      }
                    />
                    {p.code} — {p.title}
                  </label>
                ))}
              </div>
            </fieldset>
            <RuleButtons
              index={i}
              count={rules.length}
              what={`project rule ${i + 1}`}
              onMove={(to) => onChange(move(rules, i, to))}
              onRemove={() => onChange(rules.filter((_r, j) => j !== i))}
            />
          </li>
        ))}
      </ol>
      <Button className="sso-add" onPress={() => onChange([...rules, { group: '', projectIds: [] }])}>
        Add a project rule
      </Button>
      {error && (
        <span id={`${id}-err`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </fieldset>
  );
}
