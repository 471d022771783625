import { formatCount } from '../../lib/format';

/** How the triage pages say a group: "14 cases fail with", "1 case fails with". */
export const failWith = (count: number) =>
  count === 1 ? '1 case fails with' : `${formatCount(count)} cases fail with`;

/** The run's failures in one line: "6 failing cases in 2 groups". */
export function failuresSummary(groups: readonly { count: number }[]): string {
  const cases = groups.reduce((n, g) => n + g.count, 0);
  return `${formatCount(cases)} failing ${cases === 1 ? 'case' : 'cases'} in ${formatCount(groups.length)} ${
    groups.length === 1 ? 'group' : 'groups'
  }`;
}

/** A link's text as the service stores it: the address when no text was given. */
export const linkTextOr = (text: string, url: string) => text.trim() || url.trim();
