import { describe, expect, it } from 'vitest';
import { guessMapping } from './mapping';

describe('the first guess of a column mapping', () => {
  it("offers TestRail's and spreadsheets' id and priority headers as Legacy ID and Priority", () => {
    expect(guessMapping(['Case ID', 'Title', 'Prio', 'Section'], [])).toEqual([
      'legacyId',
      'title',
      'priority',
      'folder',
    ]);
    expect(guessMapping(['Test Case ID', 'Summary', 'ID'], [])).toEqual(['legacyId', 'title', '']);
  });

  it('maps a header to a custom field by its name or system name before any guess', () => {
    expect(guessMapping(['Component', 'Priority'], [{ systemName: 'component', name: 'Component' }])).toEqual(
      ['customField:component', 'priority'],
    );
  });
});
