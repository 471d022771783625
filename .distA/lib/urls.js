/** True for an absolute http:// or https:// URL (links, requirement and tracker URLs). */
export function isHttpUrl(value) {
    try {
        const u = new URL(value);
        return u.protocol === 'http:' || u.protocol === 'https:';
    }
    catch {
        return false;
    }
}
//# sourceMappingURL=urls.js.map