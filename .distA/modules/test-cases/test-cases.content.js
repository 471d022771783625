const sortKeys = (record) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
/** D15: two contents are the same version when every versioned property is equal. */
export function sameContent(a, b) {
    const key = (s) => JSON.stringify([
        s.title,
        s.priority,
        s.comment,
        s.precondition,
        s.steps,
        s.tagIds,
        s.requirementIds,
        s.links,
        sortKeys(s.customFields),
        s.fileIds,
        {
            suffixParams: s.templateData.suffixParams,
            values: s.templateData.values && sortKeys(s.templateData.values),
        },
    ]);
    return key(a) === key(b);
}
/** True when HTML shows nothing: no text once tags and non-breaking spaces are gone, and no image. */
export function isBlankHtml(html) {
    if (/<img\b/i.test(html))
        return false;
    return (html
        .replace(/<[^>]*>/g, '')
        .replace(/&nbsp;|&#160;/gi, ' ')
        .trim() === '');
}
const PLACEHOLDER = /\$\{([^{}]+)\}/g;
/** The `${name}` placeholders of the given texts, each once, in order of appearance. */
export function placeholdersOf(texts) {
    const names = new Set();
    for (const text of texts)
        for (const m of text.matchAll(PLACEHOLDER))
            names.add(m[1]);
    return [...names];
}
/** Replaces every `${name}` that has a value; others stay as written. */
export function fillPlaceholders(text, values) {
    return text.replace(PLACEHOLDER, (whole, name) => Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole);
}
/** The texts of a template spec that may hold placeholders: title, standalone precondition and steps. */
export function templateTexts(spec) {
    const texts = [spec.title];
    if (spec.precondition.type === 'standalone')
        texts.push(spec.precondition.text);
    for (const s of spec.steps)
        if (s.type === 'standalone')
            texts.push(s.description, s.expected);
    return texts;
}
/** ` [v1, v2]`: the values of the template's suffix parameters appended to a filled title. */
export function titleSuffix(suffixParams, values) {
    if (suffixParams.length === 0)
        return '';
    return ` [${suffixParams.map((p) => values[p] ?? '').join(', ')}]`;
}
//# sourceMappingURL=test-cases.content.js.map