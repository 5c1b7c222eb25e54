import { TestBed } from '@angular/core/testing';
import { toolsReply } from '../../testing/reply-fixture';
import { TimelineView } from './timeline-view';

async function render() {
  const record = toolsReply().record();
  const fixture = TestBed.createComponent(TimelineView);
  fixture.componentRef.setInput('record', record);
  await fixture.whenStable();
  return { record, fixture, el: fixture.nativeElement as HTMLElement };
}

describe('TimelineView', () => {
  it('draws the lanes, a focusable marble per drawn event and the bars', async () => {
    const { record, el } = await render();
    expect([...el.querySelectorAll('.lane-label')].map((t) => t.textContent)).toEqual([
      'Reply',
      'Reasoning steps',
      'Model calls',
      'Tool calls',
      'Subagents',
    ]);
    const marbles = [...el.querySelectorAll<SVGGElement>('g.marble')];
    const drawn = record.events.filter((e) => !String(e.event['type']).endsWith('_DELTA'));
    expect(marbles.map((m) => Number(m.dataset['seq']))).toEqual(drawn.map((e) => e.seq));
    expect(marbles.every((m) => m.getAttribute('role') === 'button')).toBe(true);
    // The timeline is one Tab stop: the first marble until another one is shown.
    expect(marbles.map((m) => m.getAttribute('tabindex'))).toEqual(marbles.map((_, i) => (i === 0 ? '0' : '-1')));
    expect(marbles[0]!.getAttribute('aria-label')).toBe('REPLY_START, +0.0 ms');
    expect(el.querySelectorAll('rect.bar[data-lane="tool"]')).toHaveLength(3);
    expect(el.querySelectorAll('line.marker[data-kind="compaction"]')).toHaveLength(2);
    expect(el.querySelector('.lane-deltas')?.textContent).toBe('+4 streamed pieces');
  });

  it('shows an event’s fields when its marble is focused, and arrow keys move along the events', async () => {
    const { fixture, el } = await render();
    expect(el.querySelector('.detail')!.textContent).toContain('Hover or focus a marble');
    const result = el.querySelector<SVGGElement>('g.marble[data-type="TOOL_RESULT_END"]')!;
    result.dispatchEvent(new FocusEvent('focus'));
    await fixture.whenStable();
    const detail = el.querySelector('.detail')!.textContent;
    expect(detail).toContain('TOOL_RESULT_END success');
    expect(detail).toContain('hook onActing');
    expect(detail).toContain('truncated, 2.4 MB');

    result.focus();
    result.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    await fixture.whenStable();
    expect(document.activeElement?.getAttribute('data-seq')).toBe(String(Number(result.dataset['seq']) + 1));
    await fixture.whenStable();
    expect(el.querySelectorAll('g.marble[tabindex="0"]')).toHaveLength(1);
    expect(el.querySelector('g.marble[tabindex="0"]')).toBe(document.activeElement);

    const marbles = el.querySelectorAll<SVGGElement>('g.marble');
    const press = async (key: string) => {
      document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      await fixture.whenStable();
    };
    await press('End');
    expect(document.activeElement).toBe(marbles[marbles.length - 1]);
    await press('ArrowRight'); // past the last: stays
    expect(document.activeElement).toBe(marbles[marbles.length - 1]);
    await press('Home');
    expect(document.activeElement).toBe(marbles[0]);
  });

  it('shows an event’s fields on hover', async () => {
    const { fixture, el } = await render();
    el.querySelector('g.marble[data-type="REQUIRE_USER_CONFIRM"]')!.dispatchEvent(new MouseEvent('mouseenter'));
    await fixture.whenStable();
    expect(el.querySelector('.detail')!.textContent).toContain('"reason": "refunds ask"');
    expect(el.querySelector('g.marble[aria-pressed="true"]')?.getAttribute('data-type')).toBe('REQUIRE_USER_CONFIRM');
  });
});
