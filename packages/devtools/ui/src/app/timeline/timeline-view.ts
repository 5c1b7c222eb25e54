import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  afterNextRender,
  computed,
  inject,
  input,
  signal,
} from '@angular/core';
import type { ReplyRecord, ReplySummary } from '@rxscope/devtools';
import { showValue } from '../records/shown-value';
import { ShownValueView } from '../details/shown-value-view';
import { type Marble, layoutTimeline } from './timeline-layout';

/** Room for the lane names left of the lanes. */
const GUTTER = 120;
const ROW = 34;

/**
 * The reply as a marble diagram: a lane per phase, a marble per event, a bar per duration,
 * compactions and evictions marked across the lanes. Hovering or focusing a marble shows the
 * event's fields; the marbles are one Tab stop, walked with the arrow keys, Home and End.
 */
@Component({
  selector: 'dt-timeline',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ShownValueView],
  templateUrl: './timeline-view.html',
  styleUrl: './timeline-view.css',
})
export class TimelineView {
  readonly record = input.required<ReplyRecord>();
  readonly children = input<readonly ReplySummary[]>([]);

  protected readonly gutter = GUTTER;
  protected readonly row = ROW;
  /** The width the lanes have on screen (they scroll sideways when the events need more). */
  private readonly width = signal(700);
  protected readonly layout = computed(() =>
    layoutTimeline(this.record(), { width: this.width(), rowHeight: ROW, children: this.children() }),
  );

  constructor() {
    const host = inject<ElementRef<HTMLElement>>(ElementRef).nativeElement;
    const destroyRef = inject(DestroyRef);
    afterNextRender(() => {
      if (typeof ResizeObserver === 'undefined') return;
      const fit = () => this.width.set(Math.max(400, host.clientWidth - GUTTER - 4));
      const observer = new ResizeObserver(fit);
      observer.observe(host);
      destroyRef.onDestroy(() => observer.disconnect());
    });
  }
  protected readonly selectedSeq = signal<number | undefined>(undefined);
  protected readonly selected = computed(() => this.layout().marbles.find((m) => m.seq === this.selectedSeq()));
  /** The one marble Tab stops at (the shown one, else the first); arrows move between the others. */
  protected readonly tabStop = computed(() => this.selected()?.seq ?? this.layout().marbles[0]?.seq);
  protected readonly marbleCount = computed(() => this.layout().marbles.length);
  protected readonly fields = computed(() => {
    const m = this.selected();
    return m ? showValue(m.event.event) : undefined;
  });

  protected laneY(m: Marble): number {
    const lane = this.layout().lanes.find((l) => l.id === m.lane)!;
    return lane.y + m.row * ROW + ROW / 2;
  }

  protected barY(lane: string, row: number): number {
    return this.layout().lanes.find((l) => l.id === lane)!.y + row * ROW + ROW / 2 - 4;
  }

  protected offset(m: Marble): string {
    return `+${(m.event.t - this.record().summary.startedAt).toFixed(1)} ms`;
  }

  protected show(m: Marble): void {
    this.selectedSeq.set(m.seq);
  }

  /** Left and right arrows move the focus to the previous and next marble in time, Home and End to the first and last. */
  protected step(event: Event, m: Marble, by: number): void {
    event.preventDefault();
    const marbles = this.layout().marbles;
    const at = marbles.findIndex((x) => x.seq === m.seq) + by;
    const next = marbles[Math.min(marbles.length - 1, Math.max(0, at))];
    if (!next) return;
    const svg = (event.target as Element).closest('svg');
    svg?.querySelector<SVGGElement>(`[data-seq="${next.seq}"]`)?.focus();
  }
}
