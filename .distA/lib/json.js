/** Parses a JSON text column, falling back when the column is empty. */
export function parseJson(text, fallback) {
    if (text === null || text === undefined || text === '')
        return fallback;
    return JSON.parse(text);
}
//# sourceMappingURL=json.js.map