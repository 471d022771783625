import {
  ENTERPRISE_USER_SCHEMA,
  invalidValue,
  scimBoolean,
  splitPath,
  USER_SCHEMA,
  valueFilter,
  type PatchOperation,
} from './scim.protocol.js';

/*
 * A SCIM User as Casebook keeps it, while a request changes it: what POST and PUT send, and what each PATCH
 * operation does to it. Attributes Casebook does not keep (title, phone numbers, the enterprise extension's
 * department…) are accepted and dropped, as providers send them whatever a service keeps.
 */

export interface Email {
  value: string;
  type?: string;
  primary?: boolean;
}

export interface UserDraft {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  /** name.formatted; cleared when givenName or familyName change, so the name follows them. */
  formatted: string | null;
  displayName: string | null;
  emails: Email[];
  active: boolean;
}

const text = (value: unknown, name: string): string | null => {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw invalidValue(`${name} must be a string`);
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
};

function emailsOf(value: unknown): Email[] {
  if (value === null || value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((e) => {
    const o = e as { value?: unknown; type?: unknown; primary?: unknown };
    const address = text(o?.value, 'emails.value');
    if (!address) throw invalidValue('every entry of emails has a value');
    return {
      value: address,
      ...(typeof o.type === 'string' ? { type: o.type } : {}),
      ...(o.primary === undefined ? {} : { primary: scimBoolean(o.primary, 'emails.primary') }),
    };
  });
}

/** The draft of a POST or PUT body; `active` absent keeps `activeNow` (providers always send it on PUT). */
export function draftFromBody(body: unknown, activeNow = true): UserDraft {
  const b = (body ?? {}) as Record<string, unknown>;
  const userName = text(b.userName, 'userName');
  if (!userName) throw invalidValue('userName is required');
  const name = (b.name ?? {}) as Record<string, unknown>;
  return {
    userName,
    externalId: text(b.externalId, 'externalId'),
    givenName: text(name.givenName, 'name.givenName'),
    familyName: text(name.familyName, 'name.familyName'),
    formatted: text(name.formatted, 'name.formatted'),
    displayName: text(b.displayName, 'displayName'),
    emails: emailsOf(b.emails),
    active: b.active === undefined ? activeNow : scimBoolean(b.active, 'active'),
  };
}

/** The Casebook name: name.formatted, else given and family name, else displayName, else userName. */
export function nameOf(d: UserDraft): string {
  const parts = [d.givenName, d.familyName].filter((p): p is string => !!p).join(' ');
  return (d.formatted ?? (parts || null) ?? d.displayName ?? d.userName).slice(0, 255);
}

/** The Casebook e-mail: the primary e-mail, else the first, else userName (Okta's and Entra ID's usual value). */
export function emailOf(d: UserDraft): string {
  return (d.emails.find((e) => e.primary) ?? d.emails[0])?.value ?? d.userName;
}

function setName(d: UserDraft, key: string, value: unknown, remove: boolean): void {
  const v = remove ? null : text(value, `name.${key}`);
  const k = key.toLowerCase();
  if (k === 'givenname') d.givenName = v;
  else if (k === 'familyname') d.familyName = v;
  else if (k === 'formatted') {
    d.formatted = v;
    return;
  } else return;
  d.formatted = null;
}

function setEmails(d: UserDraft, op: PatchOperation, filter?: string, sub?: string): void {
  if (filter === undefined) {
    if (op.op === 'remove') d.emails = [];
    else if (op.op === 'replace') d.emails = emailsOf(op.value);
    else
      d.emails = [
        ...d.emails.filter((e) => !emailsOf(op.value).some((n) => n.value === e.value)),
        ...emailsOf(op.value),
      ];
    return;
  }
  const matches = valueFilter(filter);
  if (op.op === 'remove') {
    d.emails = d.emails.filter((e) => !matches(e));
    return;
  }
  const hit = d.emails.filter((e) => matches(e));
  const patch: Partial<Email> =
    sub === undefined
      ? emailsOf(op.value)[0]
      : sub.toLowerCase() === 'value'
        ? { value: text(op.value, 'emails.value') ?? '' }
        : sub.toLowerCase() === 'primary'
          ? { primary: scimBoolean(op.value, 'emails.primary') }
          : {};
  if (hit.length > 0) {
    for (const e of hit) Object.assign(e, patch);
  } else if (patch.value) {
    // `emails[type eq "work"].value` on a person without a work address adds one of that type (Entra ID).
    const type = /^\s*type\s+eq\s+"([^"]*)"\s*$/i.exec(filter)?.[1];
    d.emails.push({ ...(type ? { type } : {}), ...patch } as Email);
  }
}

/** One attribute of a path-less value object, or the attribute a path names. */
function apply(d: UserDraft, op: PatchOperation, path: string, value: unknown): void {
  const p = splitPath(path);
  if (p.schema && p.schema.toLowerCase() === ENTERPRISE_USER_SCHEMA.toLowerCase()) return;
  if (p.schema && p.schema.toLowerCase() !== USER_SCHEMA.toLowerCase()) return;
  const remove = op.op === 'remove';
  const one = { ...op, value };
  switch (p.attribute.toLowerCase()) {
    case 'username':
      if (remove) throw invalidValue('userName is required: it can be replaced, not removed');
      d.userName = text(value, 'userName') ?? d.userName;
      return;
    case 'externalid':
      d.externalId = remove ? null : text(value, 'externalId');
      return;
    case 'displayname':
      d.displayName = remove ? null : text(value, 'displayName');
      return;
    case 'active':
      if (!remove) d.active = scimBoolean(value, 'active');
      return;
    case 'name':
      if (p.subAttribute) return setName(d, p.subAttribute, value, remove);
      for (const key of ['givenName', 'familyName', 'formatted']) {
        const given = (value ?? {}) as Record<string, unknown>;
        if (remove || op.op === 'replace' || key in given) setName(d, key, given[key], remove);
      }
      return;
    case 'emails':
      return setEmails(d, one, p.filter, p.subAttribute);
    default:
      // Kept nowhere: accepted and dropped (see above).
      return;
  }
}

/** RFC 7644 §3.5.2 on the draft, with Entra ID's and Okta's forms (see PatchOperation). */
export function applyPatch(d: UserDraft, ops: PatchOperation[]): UserDraft {
  for (const op of ops) {
    if (op.path !== undefined) {
      apply(d, op, op.path, op.value);
      continue;
    }
    if (!op.value || typeof op.value !== 'object' || Array.isArray(op.value)) {
      throw invalidValue('an operation without a path has an object of attributes as its value');
    }
    for (const [key, value] of Object.entries(op.value)) {
      if (key.toLowerCase() === USER_SCHEMA.toLowerCase() && value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) apply(d, op, k, v);
      } else if (key.toLowerCase().startsWith('urn:') && !key.includes(USER_SCHEMA + ':')) {
        continue;
      } else {
        apply(d, op, key, value);
      }
    }
  }
  return d;
}
