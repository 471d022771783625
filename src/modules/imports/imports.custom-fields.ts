import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { badRequest, forbidden } from '../../errors.js';
import {
  createCustomField,
  listFieldsBySystemName,
  NAME_MAX,
  OPTION_MAX,
  OPTIONS_MAX,
  TEXT_VALUE_MAX,
} from '../custom-fields/custom-fields.service.js';
import type { CustomField } from '../custom-fields/custom-fields.schemas.js';
import { textToHtml } from './formats/markdown.js';
import type { RowError } from './formats/types.js';

/*
 * Custom fields the file carries (extensions.md §7a): a key Casebook has no field for is never an error. Per key the
 * importer chooses (field `customFields`): create a field (type guessed from the values seen, or chosen), map it to an
 * existing field, or leave it out. Without a choice: create when the importer is an admin, else leave out; a warning
 * (row 0, the key as field) says which, either way. A key the tenant has a field for is imported into it as before,
 * unless a choice says otherwise. Pass 1 sees every value (nothing is created); the fields are created when pass 2
 * starts, then each row's values are put under them.
 */

export const FIELD_ACTIONS = ['create', 'map', 'skip'] as const;
export const FIELD_TYPES = ['text', 'dropdown', 'checkbox', 'richtext'] as const;
type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldChoice {
  action: (typeof FIELD_ACTIONS)[number];
  fieldId?: string;
  type?: FieldType;
  name?: string;
}
export type FieldChoices = Record<string, FieldChoice>;

/** A dropdown is guessed for at most this many distinct values, each at most SHORT characters. */
export const DROPDOWN_MAX = 30;
const SHORT = 40;
/** Distinct values kept per key for the preview. */
export const VALUES_SHOWN = 50;
const BOOLEAN = /^(yes|no|true|false|0|1)$/i;
const TRUE = /^(yes|true|1)$/i;

/** The `customFields` field of the request, checked; a 400 names the key. */
export function checkChoices(raw: string): FieldChoices {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest(
      'customFields must be a JSON object from the key in the file to a choice',
      '/customFields',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw badRequest(
      'customFields must be a JSON object from the key in the file to a choice',
      '/customFields',
    );
  const out: FieldChoices = {};
  for (const [key, v] of Object.entries(parsed as Record<string, unknown>)) {
    const path = `/customFields/${key}`;
    const c = v as Partial<FieldChoice> | null;
    if (typeof c !== 'object' || c === null || !(FIELD_ACTIONS as readonly unknown[]).includes(c.action))
      throw badRequest(`customFields "${key}": action must be one of ${FIELD_ACTIONS.join(', ')}`, path);
    if (c.action === 'map' && (typeof c.fieldId !== 'string' || c.fieldId === ''))
      throw badRequest(`customFields "${key}": map needs the fieldId of an existing custom field`, path);
    if (c.type !== undefined && !(FIELD_TYPES as readonly unknown[]).includes(c.type))
      throw badRequest(`customFields "${key}": type must be one of ${FIELD_TYPES.join(', ')}`, path);
    if (
      c.name !== undefined &&
      (typeof c.name !== 'string' || c.name.trim() === '' || c.name.length > NAME_MAX)
    )
      throw badRequest(`customFields "${key}": name must be 1-${NAME_MAX} characters`, path);
    out[key] = {
      action: c.action as FieldChoice['action'],
      ...(c.action === 'map' ? { fieldId: c.fieldId } : {}),
      ...(c.action === 'create' && c.type ? { type: c.type } : {}),
      ...(c.action === 'create' && c.name ? { name: c.name.trim() } : {}),
    };
  }
  return out;
}

/** `automation_type` → `Automation Type` (TestRail's labels are written so). */
export const labelOf = (key: string) =>
  key
    .split(/[_\s]+/)
    .filter((w) => w !== '')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ') || key;

const systemNameOf = (key: string) => {
  const s = key
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (/^[a-z]/.test(s) ? s : `f_${s}`).slice(0, 64);
};

interface Seen {
  values: Map<string, number>;
  count: number;
  longest: number;
  boolean: boolean;
  multiline: boolean;
  /** Distinct values past what is kept (the type guess needs only to know there were more). */
  more: boolean;
}

/** One key of the file as the preview shows it. */
export interface FileField {
  key: string;
  /** The field it goes to now: the tenant's field of that system name, or null. */
  fieldId: string | null;
  /** What happens without a choice (for this caller). */
  action: FieldChoice['action'];
  guessedType: FieldType;
  name: string;
  values: string[];
  count: number;
}

type Decision =
  | { kind: 'keep' }
  | { kind: 'map'; field: CustomField }
  | { kind: 'skip'; why: string }
  | { kind: 'create'; type?: FieldType; name: string; systemName: string };

export class CustomFieldPlan {
  private readonly decisions = new Map<string, Decision>();
  private readonly seen = new Map<string, Seen>();
  /** key → the created field's type and system name (pass 2). */
  private readonly created = new Map<string, { type: FieldType; systemName: string }>();

  private constructor(
    private readonly known: Map<string, CustomField>,
    private readonly choices: FieldChoices,
    private readonly mayCreate: boolean,
  ) {}

  static async load(db: Db, tenantId: string, choices: FieldChoices | undefined, mayCreate: boolean) {
    return new CustomFieldPlan(await listFieldsBySystemName(db, tenantId), choices ?? {}, mayCreate);
  }

  /** The choices' references checked before anything is stored: 400 for an unknown field, 403-like for create. */
  static async checkChoices(db: Db, tenantId: string, choices: FieldChoices, mayCreate: boolean) {
    const known = [...(await listFieldsBySystemName(db, tenantId)).values()];
    for (const [key, c] of Object.entries(choices)) {
      if (c.action === 'map' && !known.some((f) => f.id === c.fieldId))
        throw badRequest(
          `customFields "${key}": custom field ${c.fieldId} not found`,
          `/customFields/${key}`,
        );
      if (c.action === 'create' && !mayCreate)
        throw forbidden(
          `customFields "${key}": creating a custom field needs the role admin or higher; choose map or skip`,
        );
    }
  }

  private decide(key: string): Decision {
    let d = this.decisions.get(key);
    if (d) return d;
    const c = this.choices[key];
    const taken = new Set([
      ...this.known.keys(),
      ...[...this.decisions.values()].flatMap((x) => (x.kind === 'create' ? [x.systemName] : [])),
    ]);
    const create = (type?: FieldType, name?: string): Decision => {
      let systemName = systemNameOf(key);
      for (let i = 2; taken.has(systemName); i++) systemName = `${systemNameOf(key).slice(0, 60)}_${i}`;
      return { kind: 'create', type, name: (name ?? labelOf(key)).slice(0, NAME_MAX), systemName };
    };
    if (c?.action === 'map') {
      const field = [...this.known.values()].find((f) => f.id === c.fieldId)!;
      d = { kind: 'map', field };
    } else if (c?.action === 'skip') d = { kind: 'skip', why: 'left out as chosen' };
    else if (c?.action === 'create') d = this.known.has(key) ? { kind: 'keep' } : create(c.type, c.name);
    else if (this.known.has(key)) d = { kind: 'keep' };
    else if (this.mayCreate) d = create();
    else d = { kind: 'skip', why: 'left out: only an admin may create custom fields' };
    this.decisions.set(key, d);
    return d;
  }

  private note(key: string, value: string) {
    let s = this.seen.get(key);
    if (!s) {
      s = { values: new Map(), count: 0, longest: 0, boolean: true, multiline: false, more: false };
      this.seen.set(key, s);
    }
    s.count++;
    s.longest = Math.max(s.longest, value.length);
    if (!BOOLEAN.test(value.trim())) s.boolean = false;
    if (/[\r\n]/.test(value)) s.multiline = true;
    if (s.values.has(value)) s.values.set(value, s.values.get(value)! + 1);
    else if (s.values.size < OPTIONS_MAX) s.values.set(value, 1);
    else s.more = true;
  }

  private guess(key: string): FieldType {
    const s = this.seen.get(key);
    if (!s) return 'text';
    if (s.boolean) return 'checkbox';
    if (!s.more && s.values.size <= DROPDOWN_MAX && s.longest <= SHORT && !s.multiline) return 'dropdown';
    return s.longest <= TEXT_VALUE_MAX && !s.multiline ? 'text' : 'richtext';
  }

  /** Why a value does not fit the type the importer chose (a guessed type always fits). */
  private misfit(key: string, type: FieldType | undefined, value: string): string | undefined {
    if (type === 'checkbox' && !BOOLEAN.test(value.trim()))
      return `custom field "${key}" is made a checkbox: its values are yes/no, true/false or 1/0, not ${JSON.stringify(value)}`;
    if (type === 'text' && value.length > TEXT_VALUE_MAX)
      return `custom field "${key}" is made a text field: at most ${TEXT_VALUE_MAX} characters`;
    if (type === 'dropdown') {
      const s = this.seen.get(key);
      if (value.length > OPTION_MAX)
        return `custom field "${key}" is made a dropdown: options are at most ${OPTION_MAX} characters`;
      if (s && !s.values.has(value) && s.values.size >= OPTIONS_MAX)
        return `custom field "${key}" is made a dropdown: at most ${OPTIONS_MAX} options; ${JSON.stringify(value)} is one more`;
    }
    return undefined;
  }

  /**
   * Pass 1: the row's values under the names they are checked with (mapped keys renamed; created and left-out keys
   * taken out, as no field holds them yet); answers the row's errors (values that do not fit a chosen type).
   */
  check(row: number, values: Record<string, string>): { values: Record<string, string>; errors: RowError[] } {
    const out: Record<string, string> = {};
    const errors: RowError[] = [];
    for (const [key, value] of Object.entries(values)) {
      const d = this.decide(key);
      const why = d.kind === 'create' ? this.misfit(key, d.type, value) : undefined;
      if (why) {
        errors.push({ row, field: `customField:${key}`, message: why });
        continue;
      }
      this.note(key, value);
      if (d.kind === 'keep' || d.kind === 'map') out[d.kind === 'map' ? d.field.systemName : key] = value;
    }
    return { values: out, errors };
  }

  /** Values of left-out keys in a row (for the reconciliation). */
  skippedIn(values: Record<string, string>): number {
    return Object.keys(values).filter((k) => this.decide(k).kind === 'skip').length;
  }

  /** Creates the fields (pass 2, before the first chunk; inside the caller's transaction). */
  async createFields(db: Db, actor: Actor): Promise<void> {
    for (const [key, d] of this.decisions) {
      if (d.kind !== 'create' || !this.seen.has(key)) continue;
      const type = d.type ?? this.guess(key);
      const options =
        type === 'dropdown' ? [...this.seen.get(key)!.values.keys()].map((value) => ({ value })) : undefined;
      await createCustomField(db, actor, {
        type,
        systemName: d.systemName,
        name: d.name,
        ...(options ? { options } : {}),
        allowAllProjects: true,
      });
      this.created.set(key, { type, systemName: d.systemName });
    }
  }

  /** Pass 2: the row's values as written (created fields' values in their type's form; left-out keys gone). */
  write(values: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) {
      const d = this.decide(key);
      if (d.kind === 'keep') out[key] = value;
      else if (d.kind === 'map') out[d.field.systemName] = value;
      else if (d.kind === 'create') {
        const f = this.created.get(key);
        if (!f) continue;
        out[f.systemName] =
          f.type === 'checkbox'
            ? String(TRUE.test(value.trim()))
            : f.type === 'richtext'
              ? textToHtml(value)
              : value;
      }
    }
    return out;
  }

  /** One warning per key the tenant had no field for, and per choice applied (row 0, the key as field). */
  warnings(dryRun: boolean): RowError[] {
    const out: RowError[] = [];
    for (const [key, d] of this.decisions) {
      const s = this.seen.get(key);
      const n = s ? `${s.count} value${s.count === 1 ? '' : 's'}` : 'its values';
      const field = `customField:${key}`;
      if (d.kind === 'create')
        out.push({
          row: 0,
          field,
          message: `custom field "${key}" is not in Casebook: ${dryRun ? 'would be' : ''}${dryRun ? ' ' : ''}created as the ${d.type ?? this.guess(key)} field "${d.name}" (${d.systemName}) with ${n}`,
        });
      else if (d.kind === 'skip')
        out.push({ row: 0, field, message: `custom field "${key}" ${d.why} (${n})` });
      else if (d.kind === 'map' && d.field.systemName !== key)
        out.push({
          row: 0,
          field,
          message: `custom field "${key}" imported into the field "${d.field.name}" (${d.field.systemName})`,
        });
    }
    return out;
  }

  /** The file's keys as the preview lists them. */
  fileFields(): FileField[] {
    return [...this.decisions.entries()].map(([key, d]) => {
      const s = this.seen.get(key);
      const known = this.known.get(key);
      return {
        key,
        fieldId: d.kind === 'map' ? d.field.id : (known?.id ?? null),
        action: d.kind === 'keep' || d.kind === 'map' ? 'map' : d.kind,
        guessedType: (d.kind === 'create' && d.type) || this.guess(key),
        name: d.kind === 'create' ? d.name : (known?.name ?? labelOf(key)),
        values: s ? [...s.values.keys()].slice(0, VALUES_SHOWN) : [],
        count: s?.count ?? 0,
      };
    });
  }
}
