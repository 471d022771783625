/** What other features may use of the imports feature: who may import (D3: user and up), where the export is. */
export const canImport = (role: string) => role === 'user' || role === 'admin' || role === 'owner';
export { exportUrl } from './api';
