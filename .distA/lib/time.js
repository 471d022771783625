/** Timestamps are stored and returned as ISO 8601 UTC strings with milliseconds (they sort as text). */
export const nowIso = () => new Date().toISOString();
//# sourceMappingURL=time.js.map