import type { Priority } from '../../api/priorities';
import type { TestCase, TestCaseCreate, TestCasePatch } from './api';

export interface StepDraft {
  /** Stable key for React and reordering (steps have no id of their own until saved). */
  key: string;
  sharedStepId?: number;
  title?: string;
  subSteps?: { id: number; description: string; expected: string }[];
  description: string;
  expected: string;
}

export interface FileRef {
  id: string;
  fileName: string;
  mimeType: string;
  size: number;
  url: string;
}

/** What the editor holds while someone edits; turned into the API's body on save. */
export interface Draft {
  type: 'standalone' | 'template' | 'filled';
  title: string;
  priority: Priority;
  folderId: number;
  preconditionMode: 'own' | 'shared';
  preconditionText: string;
  sharedPreconditionId?: number;
  steps: StepDraft[];
  tags: string[];
  customFields: Record<string, string | null>;
  requirements: { text: string; url: string }[];
  links: { text: string; url: string }[];
  files: FileRef[];
  isDraft: boolean;
  parameterValues: { tcaseId?: string; values: Record<string, string> }[];
  filledTCaseTitleSuffixParams: string[];
}

let counter = 0;
export const newKey = () => `s${++counter}`;

export function draftOf(t: TestCase): Draft {
  const pre = t.precondition;
  return {
    type: t.type,
    title: t.title,
    priority: t.priority,
    folderId: t.folderId,
    preconditionMode: pre?.type === 'shared' ? 'shared' : 'own',
    preconditionText: pre?.type === 'shared' ? '' : (pre?.text ?? ''),
    sharedPreconditionId: pre?.type === 'shared' ? pre.id : undefined,
    steps: (t.steps ?? []).map((s) =>
      s.type === 'shared'
        ? {
            key: newKey(),
            sharedStepId: s.id,
            title: s.title,
            subSteps: (s.subSteps ?? []).map((x) => ({
              id: x.id,
              description: x.description,
              expected: x.expected,
            })),
            description: '',
            expected: '',
          }
        : { key: newKey(), description: s.description ?? '', expected: s.expected ?? '' },
    ),
    tags: (t.tags ?? []).map((x) => x.title),
    customFields: Object.fromEntries(
      Object.entries(t.customFields ?? {}).map(([k, v]) => [k, v.isDefault ? null : v.value]),
    ),
    requirements: (t.requirements ?? []).map((r) => ({ text: r.text, url: r.url })),
    links: t.links.map((l) => ({ text: l.text, url: l.url })),
    files: t.files.map((f) => ({ ...f })),
    isDraft: t.isDraft,
    parameterValues: (t.parameterValues ?? []).map((p) => ({ tcaseId: p.tcaseId, values: { ...p.values } })),
    filledTCaseTitleSuffixParams: t.filledTCaseTitleSuffixParams ?? [],
  };
}

/**
 * A new case made from an existing one ("Duplicate"): everything it holds, titled "Copy of …", in its folder.
 * A filled case's copy is a case of its own (only templates make filled cases); a template's copy makes its
 * own filled cases from the same rows.
 */
export function copyDraft(t: TestCase): Draft {
  const d = draftOf(t);
  return {
    ...d,
    type: d.type === 'filled' ? 'standalone' : d.type,
    title: `Copy of ${t.title}`,
    parameterValues: d.type === 'template' ? d.parameterValues.map((p) => ({ values: p.values })) : [],
    filledTCaseTitleSuffixParams: d.type === 'template' ? d.filledTCaseTitleSuffixParams : [],
  };
}

/** The next new case after "Save and add another": empty, but in the same folder with the same choices. */
export const nextDraft = (saved: Draft): Draft => ({
  ...emptyDraft(saved.folderId),
  type: saved.type === 'template' ? 'template' : 'standalone',
  priority: saved.priority,
});

export const emptyDraft = (folderId: number): Draft => ({
  type: 'standalone',
  title: '',
  priority: 'medium',
  folderId,
  preconditionMode: 'own',
  preconditionText: '',
  steps: [],
  tags: [],
  customFields: {},
  requirements: [],
  links: [],
  files: [],
  isDraft: false,
  parameterValues: [],
  filledTCaseTitleSuffixParams: [],
});

/** Comparable form: the editor is "dirty" when this differs from what was loaded (keys are not content). */
export const fingerprint = (d: Draft) =>
  JSON.stringify({ ...d, steps: d.steps.map(({ key: _key, ...s }) => s) });

function commonBody(d: Draft) {
  return {
    title: d.title,
    priority: d.priority,
    precondition:
      d.preconditionMode === 'shared' && d.sharedPreconditionId !== undefined
        ? { sharedPreconditionId: d.sharedPreconditionId }
        : { text: d.preconditionText },
    steps: d.steps.map((s) =>
      s.sharedStepId !== undefined
        ? { sharedStepId: s.sharedStepId }
        : { description: s.description, expected: s.expected },
    ),
    tags: d.tags,
    requirements: d.requirements,
    links: d.links,
    files: d.files.map((f) => f.id),
    customFields: Object.fromEntries(
      Object.entries(d.customFields).map(([k, v]) => [k, v === null ? { isDefault: true } : { value: v }]),
    ),
    isDraft: d.isDraft,
    folderId: d.folderId,
  };
}

export function patchBody(d: Draft): TestCasePatch {
  const body: TestCasePatch = commonBody(d);
  if (d.type === 'template') {
    body.parameterValues = d.parameterValues;
    body.filledTCaseTitleSuffixParams = d.filledTCaseTitleSuffixParams;
  }
  return body;
}

export function createBody(d: Draft): TestCaseCreate {
  const body: TestCaseCreate = {
    ...commonBody(d),
    type: d.type === 'template' ? 'template' : 'standalone',
  };
  if (d.type === 'template') {
    body.parameterValues = d.parameterValues.map((p) => ({ values: p.values }));
    body.filledTCaseTitleSuffixParams = d.filledTCaseTitleSuffixParams;
  }
  return body;
}

/** The `${name}` placeholders a template uses, in order of first appearance. */
export function placeholders(d: Draft): string[] {
  const text = [d.title, d.preconditionText, ...d.steps.flatMap((s) => [s.description, s.expected])].join(
    ' ',
  );
  const names = new Set<string>();
  for (const m of text.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)) names.add(m[1]!);
  for (const row of d.parameterValues) for (const k of Object.keys(row.values)) names.add(k);
  return [...names];
}

/** API field errors by their path (`/steps/0/description` → that key), for messages beside each field. */
export function errorsByPath(details: { path: string; message: string }[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of details ?? []) if (!out.has(d.path)) out.set(d.path, d.message);
  return out;
}
