import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The prompts a client offers its user: two tasks that string several tools together. */
export const PROMPTS = [
  {
    name: 'triage_run_failures',
    title: "Triage this run's failures",
    description:
      'Groups the failed and blocked test cases of a run by likely cause and says what to do next.',
    arguments: [
      { name: 'projectCode', description: 'Project code (e.g., BDI)', required: true },
      { name: 'runId', description: 'The run id', required: true },
    ],
  },
  {
    name: 'write_test_cases_for_requirement',
    title: 'Write test cases for this requirement',
    description:
      'Drafts test cases that cover a requirement, linked to it, after checking what already covers it.',
    arguments: [
      { name: 'projectCode', description: 'Project code (e.g., BDI)', required: true },
      { name: 'requirement', description: 'The requirement: its title, id or URL', required: true },
    ],
  },
];

const texts: Record<string, (a: Record<string, string>) => string> = {
  triage_run_failures: (a) =>
    `Triage the failures of run ${a.runId} in project ${a.projectCode}.\n` +
    `1. Call get_run_report (projectCode "${a.projectCode}", runId ${a.runId}) for the counts, the failures and ` +
    'what changed since the previous comparable run.\n' +
    '2. For each failed or blocked case, call get_run_test_case to read its results (comments, links, time).\n' +
    '3. Call list_flaky_test_cases for the project to tell flaky cases from new breakage.\n' +
    'Then group the failures by likely cause (product defect, test or data problem, environment, flaky), ' +
    'name the cases in each group by marker, and say for each group what to do next. Change nothing.',
  write_test_cases_for_requirement: (a) =>
    `Write test cases for the requirement "${a.requirement}" in project ${a.projectCode}.\n` +
    `1. Call list_requirements (projectCode "${a.projectCode}", include ["tcaseCount"]) to find the requirement, ` +
    'then list_test_cases with its id in requirementIds to see what already covers it.\n' +
    '2. Call list_folders and list_shared_steps to place the new cases and reuse shared steps.\n' +
    '3. Propose the missing cases (title, priority, precondition, steps with expected results) and wait for ' +
    'approval; then create each with create_test_case, linking the requirement in `requirements` ' +
    '(text and url as listed), in a folder made with upsert_folders if needed.',
};

/** A prompt's messages, with its arguments in place; a missing argument is the protocol's invalid-params error. */
export function getPrompt(name: string, args: Record<string, string>) {
  const prompt = PROMPTS.find((p) => p.name === name);
  const text = texts[name];
  if (!prompt || !text) throw new McpError(ErrorCode.InvalidParams, `there is no prompt named "${name}"`);
  const missing = prompt.arguments.filter((a) => a.required && !args[a.name]?.trim()).map((a) => a.name);
  if (missing.length > 0)
    throw new McpError(ErrorCode.InvalidParams, `missing arguments: ${missing.join(', ')}`);
  return {
    description: prompt.description,
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: text(args) } }],
  };
}
