import { sql, type RawBuilder } from 'kysely';
import type { Db } from './connection.js';
import { dialectOf } from './dialect.js';

/*
 * Full-text search of test cases (migration 0024): SQLite's FTS5 table `tcase_search` over
 * `tcase_search_docs`, PostgreSQL's tsvector column `tcase_search_docs.doc` with a GIN index ('simple': no stemming
 * and no stop words, so identifiers and any language match as typed). Callers hand in folded words
 * (lib/search-text.ts wordsOf): letters and digits only, so no operator of either query grammar can reach it.
 */

/** Weights of title and body: a word in the title ranks above the same word in a step. */
const TITLE_WEIGHT = 10;

/** FTS5: each word a quoted string (quotes doubled), all required, the last one a prefix. */
const fts5Query = (words: string[]): string =>
  words.map((w, i) => `"${w.replace(/"/g, '""')}"${i === words.length - 1 ? '*' : ''}`).join(' ');

/** to_tsquery: each word a quoted lexeme (quote and backslash dropped), all required, the last one a prefix. */
const tsQuery = (words: string[]): string =>
  words.map((w, i) => `'${w.replace(/['\\]/g, '')}'${i === words.length - 1 ? ':*' : ''}`).join(' & ');

/** The values that give a tcase_search_docs row its index, beyond title and body: PostgreSQL's tsvector. */
export function searchDocColumns(
  db: Db,
  titleWords: string[],
  bodyWords: string[],
): { doc?: RawBuilder<unknown> } {
  if (dialectOf(db) !== 'postgres') return {};
  // Words joined by spaces: the parser sees the same words FTS5 does (no e-mail or URL tokens of its own).
  return {
    doc: sql`setweight(to_tsvector('simple', ${titleWords.join(' ')}), 'A') || setweight(to_tsvector('simple', ${bodyWords.join(' ')}), 'D')`,
  };
}

/** The ids of the project's cases whose document holds every word: a subquery for `t.id in (…)`. */
export function matchingCaseIds(db: Db, projectId: string, words: string[]): RawBuilder<unknown> {
  if (dialectOf(db) === 'postgres') {
    return sql`select tcase_id from tcase_search_docs where project_id = ${projectId} and doc @@ to_tsquery('simple', ${tsQuery(words)})`;
  }
  return sql`select d.tcase_id from tcase_search join tcase_search_docs d on d.id = tcase_search.rowid where tcase_search match ${fts5Query(words)} and d.project_id = ${projectId}`;
}

/** The same cases with a rank, lower is better (FTS5's bm25 is negative; ts_rank is negated): join it as `m`. */
export function rankedMatches(
  db: Db,
  projectId: string,
  words: string[],
): RawBuilder<{ tcase_id: string; rank: number }> {
  if (dialectOf(db) === 'postgres') {
    return sql`(select d.tcase_id, -ts_rank(d.doc, q.query) as rank from tcase_search_docs d, to_tsquery('simple', ${tsQuery(words)}) as q(query) where d.project_id = ${projectId} and d.doc @@ q.query)`;
  }
  return sql`(select d.tcase_id, bm25(tcase_search, ${sql.lit(TITLE_WEIGHT)}, 1.0) as rank from tcase_search join tcase_search_docs d on d.id = tcase_search.rowid where tcase_search match ${fts5Query(words)} and d.project_id = ${projectId})`;
}
