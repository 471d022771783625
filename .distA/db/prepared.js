import { createQueryId } from 'kysely';
import { dialectOf } from './dialect.js';
/**
 * SQL texts of prepared queries compiled for PostgreSQL, with the statement name create-db.ts gives them: the
 * server parses and plans each once per connection (a named statement) instead of on every call.
 */
const pgStatementNames = new Map();
/** The name under which PostgreSQL keeps this statement prepared, when it is one of prepareQuery's. */
export const preparedStatementName = (sqlText) => pgStatementNames.get(sqlText);
/** Stands for the i-th argument while a prepared query is built and compiled. */
class Slot {
    index;
    constructor(index) {
        this.index = index;
    }
}
/**
 * A query built with Kysely once per dialect and then run with new arguments: on the hot paths (every
 * request authenticates; every result resolves a project, a run and a case) building and compiling a query
 * costs several times what SQLite needs to run it. Together with the statement cache of the SQLite driver and
 * the named statements on PostgreSQL (create-db.ts) this is a prepared statement on both databases.
 *
 * `build` must use its arguments only as values (`where(col, '=', arg)`, `values({ col: arg })`): it runs
 * once with placeholders, so anything computed from an argument (`arg.toUpperCase()`, `if (arg)`) would be
 * computed once for all. An argument that does not reach the compiled parameters is caught at the first call.
 */
export function prepareQuery(build) {
    const arity = build.length - 1;
    const compiled = new Map();
    const compile = (db) => {
        const dialect = dialectOf(db);
        let c = compiled.get(dialect);
        if (!c) {
            const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
            const q = build(db, ...slots).compile();
            for (const slot of slots) {
                if (!q.parameters.includes(slot)) {
                    throw new Error(`prepareQuery: argument ${slot.index + 1} is not used as a value of the query`);
                }
            }
            c = { sql: q.sql, query: q.query, parameters: q.parameters };
            compiled.set(dialect, c);
            if (dialect === 'postgres' && !pgStatementNames.has(c.sql)) {
                pgStatementNames.set(c.sql, `casebook_${pgStatementNames.size + 1}`);
            }
        }
        return c;
    };
    const run = (db, args) => {
        const c = compile(db);
        const parameters = c.parameters.map((p) => (p instanceof Slot ? args[p.index] : p));
        return db.executeQuery({ sql: c.sql, query: c.query, parameters, queryId: createQueryId() });
    };
    return {
        execute: async (db, ...args) => (await run(db, args)).rows,
        executeTakeFirst: async (db, ...args) => (await run(db, args)).rows[0],
        executeCount: async (db, ...args) => Number((await run(db, args)).numAffectedRows ?? 0),
    };
}
//# sourceMappingURL=prepared.js.map