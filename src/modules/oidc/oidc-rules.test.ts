import { describe, expect, it } from 'vitest';
import { mappedProjects, mappedRole } from './oidc-sign-in.service.js';
import { safeReturnTo } from './oidc.routes.js';

describe('returnTo after a sign-in through a provider', () => {
  it('keeps a path of this site with its query and fragment', () => {
    expect(safeReturnTo('/project/SSO?tab=runs#top')).toBe('/project/SSO?tab=runs#top');
  });

  it('lands on / for anything that could leave the site or is not a path', () => {
    for (const unsafe of [
      undefined,
      '',
      'project',
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/%0d%0aSet-Cookie:x',
      '/a\nb',
      '/a\\b',
      'javascript:alert(1)',
    ]) {
      const landed = safeReturnTo(unsafe);
      expect(landed === '/' || landed.startsWith('/%0d'), String(unsafe)).toBe(true);
      expect(landed.startsWith('//')).toBe(false);
    }
  });
});

describe('role and project rules', () => {
  const roles = [
    { group: 'qa-leads', role: 'admin' as const },
    { group: 'qa', role: 'user' as const },
  ];

  it('gives the role of the first rule whose group the person is in, none when no rule matches', () => {
    expect(mappedRole(roles, ['qa', 'qa-leads'])).toBe('admin');
    expect(mappedRole(roles, ['qa'])).toBe('user');
    expect(mappedRole(roles, ['sales'])).toBeUndefined();
    expect(mappedRole([], ['qa'])).toBeUndefined();
  });

  it('adds the projects of every matching rule, once each', () => {
    const rules = [
      { group: 'qa', projectIds: ['p1', 'p2'] },
      { group: 'mobile', projectIds: ['p2', 'p3'] },
      { group: 'web', projectIds: ['p4'] },
    ];
    expect(mappedProjects(rules, ['qa', 'mobile'])).toEqual(['p1', 'p2', 'p3']);
    expect(mappedProjects(rules, [])).toEqual([]);
  });
});
