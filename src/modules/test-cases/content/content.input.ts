import type { Db } from '../../../db/create-db.js';
import { conflict, type ErrorDetail } from '../../../errors.js';
import { sanitizeHtmlField } from '../../../lib/html.js';
import { assertFilesExist } from '../../files/files.service.js';
import { ensureRequirementIds } from '../../requirements/requirements.service.js';
import {
  assertSharedPreconditionsUsable,
  getSharedPreconditions,
} from '../../shared-preconditions/shared-preconditions.service.js';
import { assertSharedStepsUsable } from '../../shared-steps/shared-steps.service.js';
import { ensureTagIds } from '../../tags/tags.service.js';
import { type Spec, type StepSpec } from './content.model.js';
import { type CreateTcaseBody } from '../test-cases.schemas.js';
import { isHttpUrl } from '../../../lib/urls.js';
import { TITLE_MAX } from '../test-cases.common.js';

/* Write input: shape checks, references resolved or created (tags, requirements, shared items), applied to a spec. */

type EditInput = Partial<Omit<CreateTcaseBody, 'type' | 'folderId' | 'parameterValues'>>;

/**
 * Shape checks of a create or an update body, the same for both: each field's own rules, and the template-only
 * fields refused on anything but a template. Collects every problem.
 */
export function validateWrite(
  input: EditInput & Pick<CreateTcaseBody, 'parameterValues' | 'filledTCaseTitleSuffixParams'>,
  isTemplate: boolean,
  errors: ErrorDetail[],
): void {
  validateInput(input, errors);
  if (isTemplate) return;
  if (input.parameterValues !== undefined) {
    errors.push({ path: '/parameterValues', message: 'parameterValues are for templates only' });
  }
  if (input.filledTCaseTitleSuffixParams !== undefined) {
    errors.push({
      path: '/filledTCaseTitleSuffixParams',
      message: 'filledTCaseTitleSuffixParams are for templates only',
    });
  }
}

/** Shape checks that need no database; collects every problem. */
function validateInput(input: EditInput, errors: ErrorDetail[]): void {
  if (input.title !== undefined && (input.title.trim() === '' || input.title.trim().length > TITLE_MAX)) {
    errors.push({ path: '/title', message: `title must be 1-${TITLE_MAX} characters and not blank` });
  }
  if (input.precondition) {
    const { text, sharedPreconditionId } = input.precondition;
    if ((text === undefined) === (sharedPreconditionId === undefined)) {
      errors.push({
        path: '/precondition',
        message: 'precondition takes exactly one of text and sharedPreconditionId',
      });
    }
  }
  (input.steps ?? []).forEach((s, i) => {
    const standalone = s.description !== undefined || s.expected !== undefined;
    if (s.sharedStepId !== undefined && standalone) {
      errors.push({
        path: `/steps/${i}`,
        message: `step ${i + 1} takes either sharedStepId or description/expected, not both`,
      });
    } else if (s.sharedStepId === undefined && !standalone) {
      errors.push({
        path: `/steps/${i}`,
        message: `step ${i + 1} needs a description, an expected result or a sharedStepId`,
      });
    }
  });
  (input.links ?? []).forEach((l, i) => {
    if (l.text.trim() === '')
      errors.push({ path: `/links/${i}/text`, message: 'link text must not be blank' });
    if (!isHttpUrl(l.url)) {
      errors.push({ path: `/links/${i}/url`, message: 'link url must be an absolute http(s) URL' });
    }
  });
}

interface Resolved {
  tagIds?: number[];
  requirementIds?: string[];
  sharedSteps: Map<number, number>;
  sharedPrecondition?: { id: number; version: number; text: string };
}

/** Creates tags and requirements on demand and checks every referenced resource (inside the transaction). */
export async function resolveReferences(
  trx: Db,
  tenantId: string,
  projectId: string,
  input: EditInput,
  /** Tag ids by trimmed title that the caller already holds (an import resolves a chunk's tags at once). */
  knownTagIds?: ReadonlyMap<string, number>,
): Promise<Resolved> {
  const out: Resolved = { sharedSteps: new Map() };
  if (input.tags) {
    const known = knownTagIds && input.tags.map((t) => knownTagIds.get(t.trim()));
    const ids =
      known && known.every((id) => id !== undefined)
        ? known
        : await ensureTagIds(trx, tenantId, projectId, input.tags);
    out.tagIds = [...new Set(ids)];
  }
  if (input.requirements) {
    const ids = await ensureRequirementIds(trx, tenantId, projectId, input.requirements);
    const seen = new Map<string, number>();
    ids.forEach((id, i) => {
      if (seen.has(id)) {
        throw conflict(
          `requirement "${input.requirements![i].text}" is listed twice (entries ${seen.get(id)! + 1} and ${i + 1})`,
        );
      }
      seen.set(id, i);
    });
    out.requirementIds = ids;
  }
  const sharedStepIds = (input.steps ?? []).flatMap((s) =>
    s.sharedStepId !== undefined ? [s.sharedStepId] : [],
  );
  if (sharedStepIds.length > 0)
    out.sharedSteps = await assertSharedStepsUsable(trx, tenantId, projectId, sharedStepIds);
  const sharedPre = input.precondition?.sharedPreconditionId;
  if (sharedPre !== undefined) {
    const versions = await assertSharedPreconditionsUsable(trx, tenantId, projectId, [sharedPre]);
    const shown = (await getSharedPreconditions(trx, tenantId, [sharedPre])).get(sharedPre);
    out.sharedPrecondition = {
      id: sharedPre,
      version: versions.get(sharedPre) ?? 1,
      text: shown?.text ?? '',
    };
  }
  if (input.files?.length) await assertFilesExist(trx, tenantId, input.files);
  return out;
}

/** The steps a write asks for, with HTML sanitised (D22) and shared steps at their latest version. */
function stepSpecs(input: EditInput, resolved: Resolved): StepSpec[] | undefined {
  return input.steps?.map((s) =>
    s.sharedStepId !== undefined
      ? { type: 'shared', id: s.sharedStepId, version: resolved.sharedSteps.get(s.sharedStepId) ?? 1 }
      : {
          type: 'standalone',
          description: sanitizeHtmlField(s.description ?? ''),
          expected: sanitizeHtmlField(s.expected ?? ''),
        },
  );
}

/** Applies the given fields of a write to a spec (create: an empty spec; update: the current content). */
export function applyInput(
  base: Spec,
  input: EditInput,
  resolved: Resolved,
  customFields: Spec['customFields'],
): Spec {
  const spec: Spec = { ...base, customFields };
  if (input.title !== undefined) spec.title = input.title.trim();
  if (input.priority !== undefined) spec.priority = input.priority;
  if (resolved.sharedPrecondition) {
    spec.precondition = { type: 'shared', ...resolved.sharedPrecondition };
  } else if (input.precondition?.text !== undefined) {
    spec.precondition = { type: 'standalone', text: sanitizeHtmlField(input.precondition.text) };
  } else if (input.comment !== undefined && input.precondition === undefined) {
    // The deprecated `comment` sets the standalone precondition text.
    spec.precondition = { type: 'standalone', text: sanitizeHtmlField(input.comment) };
  }
  const steps = stepSpecs(input, resolved);
  if (steps) spec.steps = steps;
  if (resolved.tagIds) spec.tagIds = resolved.tagIds;
  if (resolved.requirementIds) spec.requirementIds = resolved.requirementIds;
  if (input.links) spec.links = input.links.map((l) => ({ text: l.text.trim(), url: l.url }));
  if (input.files) spec.fileIds = [...new Set(input.files)];
  if (input.filledTCaseTitleSuffixParams) {
    spec.templateData = { ...spec.templateData, suffixParams: [...input.filledTCaseTitleSuffixParams] };
  }
  return spec;
}
