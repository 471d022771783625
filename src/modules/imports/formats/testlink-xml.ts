import { xmlReader, XmlFileError } from '../../../lib/xml.js';
import { customFieldName, textChunks, type TextInput } from './testrail-common.js';
import type { ImportedCase, ImportedStep, ParsedItem } from './types.js';

/*
 * TestLink's XML export of test suites (a project or a suite: <testsuite name="…"> nested) or of test cases
 * (<testcases>):
 *
 *   <testsuite name="Regression"><details/>
 *     <testcase internalid="4" name="Login"><externalid>1</externalid><summary>…</summary><preconditions>…
 *       <execution_type>1</execution_type><importance>2</importance>
 *       <steps><step><step_number>1</step_number><actions>…</actions><expectedresults>…</expectedresults></step></steps>
 *       <keywords><keyword name="smoke"/></keywords>
 *       <custom_fields><custom_field><name>Browser</name><value>Chrome</value></custom_field></custom_fields>
 *       <requirements><requirement><doc_id>REQ-1</doc_id><title>…</title></requirement></requirements>
 *     </testcase>
 *     <testsuite name="nested">…</testsuite>
 *   </testsuite>
 *
 * Texts are HTML (TestLink's editor). The summary has no field of its own in Casebook: it heads the precondition.
 */

interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlNode[];
}

const MAX_TEXT = 1024 * 1024;
/** TestLink's importance (3 high, 2 medium, 1 low) as Casebook's priority. */
const IMPORTANCE: Record<string, string> = { '3': 'high', '2': 'medium', '1': 'low' };
/** TestLink's execution type as a tag (it is a kind of test, not Casebook's standalone/template). */
const EXECUTION: Record<string, string> = { '1': 'Manual', '2': 'Automated' };

const kids = (node: XmlNode | undefined, name: string) => node?.children.filter((c) => c.name === name) ?? [];
const child = (node: XmlNode | undefined, name: string) => kids(node, name)[0];
const textOf = (node: XmlNode | undefined, name: string) => child(node, name)?.text.trim() ?? '';

function steps(node: XmlNode): ImportedStep[] {
  return kids(child(node, 'steps'), 'step')
    .map((s, i) => ({ n: Number(textOf(s, 'step_number')) || i + 1, s }))
    .sort((a, b) => a.n - b.n)
    .map(({ s }) => ({ description: textOf(s, 'actions'), expected: textOf(s, 'expectedresults') }))
    .filter((s) => s.description !== '' || s.expected !== '');
}

function toItem(node: XmlNode, row: number, folderPath: string[]): ParsedItem {
  const title = (node.attrs.name ?? '').trim();
  if (title === '') return { error: { row, field: 'title', message: 'the test case has no name' } };
  const c: ImportedCase = { row, folderPath, title, markup: 'html' };
  const externalId = textOf(node, 'externalid');
  if (externalId !== '') c.legacyId = externalId;
  const priority = textOf(node, 'importance');
  if (priority !== '') c.priority = IMPORTANCE[priority] ?? priority;
  const tags = kids(child(node, 'keywords'), 'keyword')
    .map((k) => (k.attrs.name ?? '').trim())
    .filter((k) => k !== '');
  const execution = EXECUTION[textOf(node, 'execution_type')];
  if (execution) tags.push(execution);
  if (tags.length > 0) c.tags = tags;
  const precondition = [textOf(node, 'summary'), textOf(node, 'preconditions')].filter((t) => t !== '');
  if (precondition.length > 0) c.precondition = precondition.join('');
  const s = steps(node);
  if (s.length > 0) c.steps = s;
  const requirements = kids(child(node, 'requirements'), 'requirement')
    .map((r) => [textOf(r, 'doc_id'), textOf(r, 'title')].filter((t) => t !== '').join(': '))
    .filter((t) => t !== '')
    .map((text) => ({ text, url: '' }));
  if (requirements.length > 0) c.requirements = requirements;
  const customFields: Record<string, string> = {};
  for (const f of kids(child(node, 'custom_fields'), 'custom_field')) {
    const name = customFieldName(textOf(f, 'name'));
    const value = textOf(f, 'value');
    if (name !== '' && value !== '') customFields[name] = value;
  }
  if (Object.keys(customFields).length > 0) c.customFields = customFields;
  return { case: c };
}

/**
 * Reads a TestLink XML export, yielding each test case (or why it cannot be read) in file order as the file
 * arrives; the folder path is the names of the enclosing test suites (an unnamed one, the project's root, left
 * out). Throws XmlFileError for a file that is no such export: malformed XML, a DOCTYPE, another root element.
 */
export async function* parseTestLinkXml(input: TextInput): AsyncGenerator<ParsedItem> {
  const ready: ParsedItem[] = [];
  const suites: string[] = [];
  let depth = 0;
  let caseStack: XmlNode[] | undefined;
  let row = 0;
  let summaryNoted = false;
  const reader = xmlReader({
    open(name, attrs) {
      if (caseStack) {
        const node: XmlNode = { name, attrs, text: '', children: [] };
        caseStack[caseStack.length - 1].children.push(node);
        caseStack.push(node);
        return;
      }
      if (depth === 0 && name !== 'testsuite' && name !== 'testcases' && name !== 'testcase')
        throw new XmlFileError(
          `not a TestLink XML export: the root element is <${name}>, not <testsuite> or <testcases>`,
        );
      depth++;
      if (name === 'testsuite') suites.push((attrs.name ?? '').trim());
      else if (name === 'testcase') caseStack = [{ name, attrs, text: '', children: [] }];
    },
    text(t) {
      if (!caseStack) return;
      const node = caseStack[caseStack.length - 1];
      if (node.text.length < MAX_TEXT) node.text += t;
    },
    close(name) {
      if (caseStack && caseStack.length > 1) {
        caseStack.pop();
        return;
      }
      depth--;
      if (caseStack) {
        const item = toItem(
          caseStack[0],
          ++row,
          suites.filter((n) => n !== ''),
        );
        if (!summaryNoted && 'case' in item && textOf(caseStack[0], 'summary') !== '') {
          summaryNoted = true;
          ready.push({
            warning: {
              row: 0,
              field: 'summary',
              message:
                "TestLink's summary has no field of its own here: it is kept at the top of each precondition",
            },
          });
        }
        ready.push(item);
        caseStack = undefined;
      } else if (name === 'testsuite') suites.pop();
    },
  });
  for await (const chunk of textChunks(input)) {
    reader.write(chunk);
    yield* ready.splice(0);
  }
  reader.close();
  yield* ready.splice(0);
}
