/** D3: roles from least to most privileged. */
export const ROLES = ['viewer', 'test-runner', 'user', 'admin', 'owner'];
export const roleRank = (role) => ROLES.indexOf(role);
export const isRole = (value) => ROLES.includes(value);
export const atLeast = (role, minimum) => roleRank(role) >= roleRank(minimum);
//# sourceMappingURL=roles.js.map