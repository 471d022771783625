import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
const addFormats = addFormatsModule;
function makeAjv(coerce) {
    const ajv = new Ajv({
        allErrors: false,
        // D8: bodies are never coerced and unknown fields are errors; query strings are coerced.
        coerceTypes: coerce ? 'array' : false,
        removeAdditional: false,
        useDefaults: true,
        strict: false,
    });
    addFormats(ajv);
    ajv.addKeyword({ keyword: 'x-split-commas' });
    return ajv;
}
const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);
/** Property names of a query schema whose value is an array: `include=a,b` is split into `['a','b']`. */
function arrayProps(schema) {
    const props = schema?.properties ?? {};
    return Object.keys(props).filter((k) => props[k]?.type === 'array');
}
export const validatorCompiler = ({ schema, httpPart }) => {
    if (httpPart === 'body')
        return strictAjv.compile(schema);
    const validate = coercingAjv.compile(schema);
    if (httpPart !== 'querystring')
        return validate;
    const lists = arrayProps(schema);
    const patternLists = Object.entries(schema?.patternProperties ?? {})
        .filter(([, s]) => s?.type === 'array')
        .map(([p]) => new RegExp(p));
    const wrapped = ((data) => {
        if (data && typeof data === 'object') {
            for (const key of Object.keys(data)) {
                if (!lists.includes(key) && !patternLists.some((re) => re.test(key)))
                    continue;
                const value = data[key];
                const values = Array.isArray(value) ? value : [value];
                data[key] = values.flatMap((v) => typeof v === 'string' ? v.split(',').filter((s) => s !== '') : [v]);
            }
        }
        const ok = validate(data);
        wrapped.errors = validate.errors;
        return ok;
    });
    return wrapped;
};
/** Turns Ajv errors into D7 details with JSON-pointer paths that name the offending field. */
export function toErrorDetails(errors, part) {
    return errors.map((e) => {
        const base = e.instancePath || '';
        if (e.keyword === 'additionalProperties') {
            const field = e.params.additionalProperty;
            return { path: `${base}/${field}`, message: `unknown field "${field}"` };
        }
        if (e.keyword === 'required') {
            const field = e.params.missingProperty;
            return { path: `${base}/${field}`, message: `"${field}" is required` };
        }
        const where = base === '' ? part : `"${base.slice(1)}"`;
        return { path: base || '/', message: `${where} ${e.message ?? 'is invalid'}` };
    });
}
//# sourceMappingURL=validation.js.map