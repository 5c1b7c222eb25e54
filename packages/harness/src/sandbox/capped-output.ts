/**
 * A command's output kept within a cap: its head and its tail, with a note of what was left out
 * in between.
 *
 * @example
 * ```ts
 * const out = new CappedOutput(1000);
 * out.add('FIRST\n');
 * out.text; // 'FIRST\n'
 * ```
 */
export class CappedOutput {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly half: number;

  constructor(max: number) {
    this.half = Math.floor(max / 2);
  }

  add(text: string): void {
    this.total += text.length;
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += text.slice(0, room);
      this.tail = (this.tail + text.slice(room)).slice(-this.half);
    } else this.tail = (this.tail + text).slice(-this.half);
  }

  /** Characters left out between the head and the tail. */
  get omitted(): number {
    return Math.max(0, this.total - this.head.length - this.tail.length);
  }

  get text(): string {
    const omitted = this.omitted;
    return omitted > 0
      ? `${this.head}\n… [${omitted} characters of output left out] …\n${this.tail}`
      : this.head + this.tail;
  }
}
