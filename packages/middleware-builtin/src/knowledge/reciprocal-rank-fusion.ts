import type { KnowledgeHit } from './knowledge-base.js';

/**
 * A hit after fusion: which mounted base it came from, and its fused score `1 / (k + rank)`
 * (rank from 1 within its base).
 *
 * @example
 * ```ts
 * const [best] = reciprocalRankFusion({ handbook: hitsA, faq: hitsB });
 * console.log(best.knowledgeBase, best.source, best.score);
 * ```
 */
export interface FusedHit extends KnowledgeHit {
  /** The name the base is mounted under. */
  readonly knowledgeBase: string;
  /** The score the hit had in its own base. */
  readonly baseScore: number;
}

/**
 * Options of {@link reciprocalRankFusion}.
 *
 * @example
 * ```ts
 * reciprocalRankFusion(rankings, { k: 60, topK: 5 });
 * ```
 */
export interface ReciprocalRankFusionOptions {
  /** The damping constant of RRF: larger values flatten the advantage of the top ranks. Default 60. */
  readonly k?: number;
  /** Most hits to return. Default: all. */
  readonly topK?: number;
}

/**
 * Merges the rankings of several knowledge bases by reciprocal rank fusion (Cormack et al.,
 * 2009): each hit scores `1 / (k + rank)`. Only ranks count, not the bases' raw scores, which
 * are not comparable between bases (different embedding models, BM25 vs. cosine). A chunk is
 * identified by base name and chunk id, so equally ranked hits of different bases interleave in
 * the order the bases are given.
 *
 * @example
 * ```ts
 * const fused = reciprocalRankFusion({ handbook: await firstValueFrom(kb1.search(q)), faq: await firstValueFrom(kb2.search(q)) }, { topK: 5 });
 * ```
 */
export function reciprocalRankFusion(
  rankings: Readonly<Record<string, readonly KnowledgeHit[]>>,
  options: ReciprocalRankFusionOptions = {},
): FusedHit[] {
  const k = options.k ?? 60;
  if (!(k >= 0)) throw new RangeError(`reciprocalRankFusion: k must be a number >= 0, got ${k}.`);
  const fused = new Map<string, { readonly hit: FusedHit; readonly score: number; readonly order: number }>();
  let order = 0;
  for (const [name, hits] of Object.entries(rankings)) {
    hits.forEach((hit, i) => {
      const key = `${name}\u0000${hit.id}`;
      // A base that lists a chunk twice: its best rank counts.
      if (!fused.has(key))
        fused.set(key, {
          hit: { ...hit, knowledgeBase: name, baseScore: hit.score },
          score: 1 / (k + i + 1),
          order: order++,
        });
    });
  }
  const sorted = [...fused.values()].sort((a, b) => b.score - a.score || a.order - b.order);
  return sorted.slice(0, options.topK ?? sorted.length).map(({ hit, score }) => ({ ...hit, score }));
}
