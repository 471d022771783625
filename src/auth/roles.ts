/** D3: roles from least to most privileged. */
export const ROLES = ['viewer', 'test-runner', 'user', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const roleRank = (role: string): number => ROLES.indexOf(role as Role);
export const isRole = (value: string): value is Role => ROLES.includes(value as Role);
export const atLeast = (role: string, minimum: Role): boolean => roleRank(role) >= roleRank(minimum);
