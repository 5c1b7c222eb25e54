import type { KnowledgeDocument } from './knowledge-base.js';

/**
 * The writes of a knowledge base, one after another (a chunk index or a vector store must not
 * see two adds interleaved); searches wait for the writes started before them. Documents are
 * checked when `add` is called, before anything is queued.
 */
export class SerialWrites {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly owner: string) {}

  /** Checks `documents`, then runs `write` after the writes queued before it. */
  add<T>(documents: readonly KnowledgeDocument[], write: () => Promise<T>): Promise<T> {
    documents.forEach((d, i) => {
      if (typeof d?.content !== 'string')
        throw new TypeError(`${this.owner}.add: document ${i} has no string 'content'.`);
    });
    const run = this.tail.then(write);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once the writes queued so far are done (failed ones included). */
  settled(): Promise<unknown> {
    return this.tail;
  }
}
