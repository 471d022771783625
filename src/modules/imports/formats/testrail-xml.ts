import { xmlReader, XmlFileError } from '../../../lib/xml.js';
import {
  blank,
  customFieldName,
  dedent,
  legacyIdOf,
  mapPriority,
  mapReferences,
  textChunks,
  type TextInput,
} from './testrail-common.js';
import type { ImportedCase, ImportedStep, ParsedItem } from './types.js';

/*
 * TestRail's XML export of a suite (and its import format, whose root is <sections>):
 *
 *   <suite><id>S1</id><name>Master</name><sections>
 *     <section><name>Checkout</name><cases><case>…</case></cases><sections>…nested…</sections></section>
 *   </sections></suite>
 *
 * A <case> holds id (C123), title, template, type, priority, estimate, references and <custom>: preconds, steps and
 * expected (the text template), steps_separated/step/{index, content, expected} (the steps template) and every
 * other custom field (a dropdown as <id>/<value>, a multi-select as <item>s, else text). The estimate goes with the
 * custom fields (key `estimate`), so the import's choices for them (create, map, leave out) decide where it goes.
 *
 * The suite and each section also yield a folder row, before their cases, carrying their <description> as the
 * folder's comment: an empty section still becomes a folder. A folder row has no ordinal of its own (rows count
 * cases): it takes that of the case read after it.
 */

interface XmlNode {
  name: string;
  text: string;
  children: XmlNode[];
}

/** Text of a case's element beyond which the rest is dropped (the pipeline's field limits are far lower). */
const MAX_TEXT = 1024 * 1024;

const child = (node: XmlNode | undefined, name: string) => node?.children.find((c) => c.name === name);
const textOf = (node: XmlNode | undefined, name: string) => child(node, name)?.text.trim() ?? '';
/** A text element (preconditions, steps, expected results) as its author wrote it: dedented, then trimmed. */
const blockOf = (node: XmlNode | undefined, name: string) => dedent(child(node, name)?.text ?? '');

/** A custom field's value: a dropdown's <value> (else its <id>), a multi-select's items joined, else its text. */
function customValue(node: XmlNode): string {
  const items = node.children.filter((c) => c.name === 'item');
  if (items.length > 0) {
    return items
      .map((i) => textOf(i, 'value') || textOf(i, 'id') || i.text.trim())
      .filter((v) => v !== '')
      .join(', ');
  }
  if (child(node, 'value') || child(node, 'id')) return textOf(node, 'value') || textOf(node, 'id');
  return node.text.trim();
}

function separatedSteps(node: XmlNode): ImportedStep[] {
  return node.children
    .filter((c) => c.name === 'step')
    .map((s, i) => ({ index: Number(textOf(s, 'index')) || i + 1, step: s }))
    .sort((a, b) => a.index - b.index)
    .map(({ step }) => ({ description: blockOf(step, 'content'), expected: blockOf(step, 'expected') }));
}

function toItem(node: XmlNode, row: number, folderPath: string[]): ParsedItem {
  const title = textOf(node, 'title');
  if (title === '') return { error: { row, field: 'title', message: 'the case has no <title>' } };
  const c: ImportedCase = { row, folderPath, title, markup: 'markdown' };
  const legacyId = legacyIdOf(textOf(node, 'id'));
  if (legacyId) c.legacyId = legacyId;
  const priority = mapPriority(textOf(node, 'priority'));
  if (priority) c.priority = priority;
  // TestRail's type (Functional, Regression, …) is a kind of test, not Casebook's standalone/template: a tag.
  const type = textOf(node, 'type');
  if (type) c.tags = [type];
  const requirements = mapReferences(textOf(node, 'references'));
  if (requirements) c.requirements = requirements;
  const custom = child(node, 'custom');
  const customFields: Record<string, string> = {};
  const estimate = textOf(node, 'estimate');
  if (estimate !== '') customFields.estimate = estimate;
  let textSteps: ImportedStep | undefined;
  for (const field of custom?.children ?? []) {
    if (field.name === 'preconds') {
      if (!blank(field.text)) c.precondition = dedent(field.text);
    } else if (field.name === 'steps_separated') {
      const steps = separatedSteps(field);
      if (steps.length > 0) c.steps = steps;
    } else if (field.name === 'steps' || field.name === 'expected') {
      textSteps ??= { description: '', expected: '' };
      textSteps[field.name === 'steps' ? 'description' : 'expected'] = dedent(field.text);
    } else {
      const value = customValue(field);
      if (value !== '') customFields[customFieldName(field.name)] = value;
    }
  }
  // The text template: one step holding the steps and the expected result as written.
  if (!c.steps && textSteps && (textSteps.description !== '' || textSteps.expected !== ''))
    c.steps = [textSteps];
  if (Object.keys(customFields).length > 0) c.customFields = customFields;
  return { case: c };
}

/**
 * Reads a TestRail XML export, yielding each case (or the reason it cannot be read) in file order as the file
 * arrives. The folder path is the suite's name, then the names of the nested sections. Throws XmlFileError for a
 * file that is not such an export as a whole: malformed or truncated XML, a DOCTYPE (refused: entity expansion),
 * another root element.
 */
export async function* parseTestRailXml(input: TextInput): AsyncGenerator<ParsedItem> {
  const ready: ParsedItem[] = [];
  const outside: string[] = [];
  /** The suite (when the root is <suite>) and the open sections: each one's name, description, and whether its folder row went out. */
  const levels: { name: string; description: string; said: boolean }[] = [];
  let text: { into: 'name' | 'description'; value: string } | undefined;
  let caseStack: XmlNode[] | undefined;
  let row = 0;
  const pathTo = (depth: number) =>
    levels
      .slice(0, depth)
      .map((l) => l.name)
      .filter((n) => n !== '');
  /** The innermost level's folder row, once: before its first case or section, or as it closes (an empty one). */
  const sayFolder = () => {
    const level = levels[levels.length - 1];
    if (!level || level.said) return;
    level.said = true;
    const folderPath = pathTo(levels.length);
    if (folderPath.length === 0 || level.name === '') return;
    ready.push({
      folder: {
        row: row + 1,
        folderPath,
        ...(level.description === '' ? {} : { comment: level.description }),
      },
    });
  };
  const reader = xmlReader({
    open(name) {
      if (caseStack) {
        const node: XmlNode = { name, text: '', children: [] };
        caseStack[caseStack.length - 1].children.push(node);
        caseStack.push(node);
        return;
      }
      if (outside.length === 0 && name !== 'suite' && name !== 'sections') {
        throw new XmlFileError(
          `not a TestRail XML export: the root element is <${name}>, not <suite> or <sections>`,
        );
      }
      const parent = outside[outside.length - 1];
      outside.push(name);
      const atLevel = parent === 'section' || parent === 'suite';
      if (name === 'case') caseStack = [{ name, text: '', children: [] }];
      else if (name === 'section' || name === 'suite')
        levels.push({ name: '', description: '', said: false });
      else if ((name === 'name' || name === 'description') && atLevel) text = { into: name, value: '' };
      else if ((name === 'cases' || name === 'sections') && atLevel) sayFolder();
    },
    text(t) {
      if (caseStack) {
        const node = caseStack[caseStack.length - 1];
        if (node.text.length < MAX_TEXT) node.text += t;
      } else if (text && text.value.length < MAX_TEXT) text.value += t;
    },
    close(name) {
      if (caseStack && caseStack.length > 1) {
        caseStack.pop();
        return;
      }
      outside.pop();
      if (caseStack) {
        ready.push(toItem(caseStack[0], ++row, pathTo(levels.length)));
        caseStack = undefined;
      } else if (name === 'section' || name === 'suite') {
        sayFolder();
        levels.pop();
      } else if (text && text.into === name) {
        const level = levels[levels.length - 1];
        if (name === 'name') level.name = text.value.trim();
        else level.description = dedent(text.value);
        text = undefined;
      }
    },
  });
  for await (const chunk of textChunks(input)) {
    reader.write(chunk);
    yield* ready.splice(0);
  }
  reader.close();
  yield* ready.splice(0);
}
