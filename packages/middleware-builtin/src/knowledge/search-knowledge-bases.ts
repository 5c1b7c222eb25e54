import { catchError, forkJoin, map, type Observable, of } from 'rxjs';
import type { KnowledgeBase, KnowledgeFilter } from './knowledge-base.js';
import { type FusedHit, reciprocalRankFusion } from './reciprocal-rank-fusion.js';

/**
 * What a search over several mounted bases found: the fused hits, best first, and the bases
 * whose search failed (the others still count).
 *
 * @example
 * ```ts
 * searchKnowledgeBases(bases, ['handbook'], 'refunds', { topK: 5 }).subscribe(({ hits, failures }) => render(hits, failures));
 * ```
 */
export interface KnowledgeSearchResult {
  readonly query: string;
  readonly hits: readonly FusedHit[];
  readonly failures: readonly { readonly knowledgeBase: string; readonly message: string }[];
}

/**
 * Options of {@link searchKnowledgeBases}.
 *
 * @example
 * ```ts
 * const options: SearchKnowledgeBasesOptions = { topK: 5, scoreThreshold: 0.2, signal };
 * ```
 */
export interface SearchKnowledgeBasesOptions {
  readonly topK: number;
  readonly scoreThreshold?: number;
  readonly filter?: KnowledgeFilter;
  readonly signal?: AbortSignal;
  /** Whose scoped documents to search besides the shared ones (see `KnowledgeSearchOptions.scope`). */
  readonly scope?: string;
  /** Damping constant of the rank fusion. Default 60. */
  readonly rrfK?: number;
}

/**
 * Searches the named bases in parallel (each for `topK` hits) and merges them by reciprocal rank
 * fusion into the best `topK`. A base whose search fails is reported in `failures`; when every
 * base fails, the result is an error naming them all.
 *
 * @example
 * ```ts
 * const { hits } = await firstValueFrom(searchKnowledgeBases({ handbook, faq }, ['handbook', 'faq'], 'refund time', { topK: 3 }));
 * ```
 */
export function searchKnowledgeBases(
  bases: Readonly<Record<string, KnowledgeBase>>,
  names: readonly string[],
  query: string,
  options: SearchKnowledgeBasesOptions,
): Observable<KnowledgeSearchResult> {
  const { topK, scoreThreshold, filter, signal, scope } = options;
  const perBase = Object.fromEntries(
    names.map((name) => [
      name,
      bases[name]!.search(query, {
        topK,
        ...(scoreThreshold !== undefined ? { scoreThreshold } : {}),
        ...(filter ? { filter } : {}),
        ...(signal ? { signal } : {}),
        ...(scope !== undefined ? { scope } : {}),
      }).pipe(
        map((hits) => ({ ok: true as const, hits })),
        catchError((err: unknown) =>
          of({ ok: false as const, message: err instanceof Error ? err.message : String(err) }),
        ),
      ),
    ]),
  );
  return forkJoin(perBase).pipe(
    map((outcomes) => {
      const failures = Object.entries(outcomes).flatMap(([knowledgeBase, o]) =>
        o.ok ? [] : [{ knowledgeBase, message: o.message }],
      );
      if (names.length && failures.length === names.length) {
        throw new Error(
          `Knowledge search failed in every base: ${failures.map((f) => `${f.knowledgeBase}: ${f.message}`).join('; ')}`,
        );
      }
      const rankings = Object.fromEntries(
        Object.entries(outcomes).flatMap(([name, o]) => (o.ok ? [[name, o.hits]] : [])),
      );
      return {
        query,
        hits: reciprocalRankFusion(rankings, { topK, ...(options.rrfK !== undefined ? { k: options.rrfK } : {}) }),
        failures,
      };
    }),
  );
}

/** The citation of a hit: its source and line range, e.g. `handbook/refunds.md:3-10`. */
export function citationOf(hit: FusedHit): string {
  return hit.lines ? `${hit.source}:${hit.lines.from}-${hit.lines.to}` : hit.source;
}

/**
 * The hits as text for the model: numbered chunks, each headed by its citation and base.
 *
 * @example
 * ```ts
 * formatKnowledge(result); // '[1] handbook/refunds.md:1-4 (handbook)\n# Refunds\n...'
 * ```
 */
export function formatKnowledge(result: KnowledgeSearchResult): string {
  const chunks = result.hits.map((h, i) => `[${i + 1}] ${citationOf(h)} (${h.knowledgeBase})\n${h.content.trim()}`);
  const failed = result.failures.map(
    (f) => `(The knowledge base "${f.knowledgeBase}" could not be searched: ${f.message})`,
  );
  return [...chunks, ...failed].join('\n\n');
}
