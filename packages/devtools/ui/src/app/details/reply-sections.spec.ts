import { type Type } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import type { ReplyRecord } from '@rxscope/devtools';
import { toolsReply } from '../../testing/reply-fixture';
import { ChainView } from './chain-view';
import { ConfirmationTable } from './confirmation-table';
import { ToolCallTable } from './tool-call-table';
import { UsageTable } from './usage-table';

async function render(component: Type<unknown>, record: ReplyRecord): Promise<HTMLElement> {
  const fixture = TestBed.createComponent(component);
  fixture.componentRef.setInput('record', record);
  await fixture.whenStable();
  return fixture.nativeElement as HTMLElement;
}
/** The text of each cell of a row, its pieces (text, line breaks, badges) apart by a space. */
function cells(row: Element): string[] {
  return [...row.querySelectorAll('td')].map((td) => {
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    const pieces: string[] = [];
    while (walker.nextNode()) pieces.push(walker.currentNode.textContent!.trim());
    return pieces.filter(Boolean).join(' ');
  });
}

describe('reply sections', () => {
  it('tool-call table: a row per call with input, output (a huge one truncated with its size), status and time', async () => {
    const el = await render(ToolCallTable, toolsReply().record());
    const rows = [...el.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-status'))).toEqual(['success', 'success']);
    const [lookup, refund] = rows.map(cells);
    expect(lookup![0]).toBe('lookup_order c1');
    expect(lookup![1]).toBe('{"orderId":"A1"}');
    expect(lookup![2]).toBe('line 1… truncated, 2.4 MB');
    expect(lookup![4]).toMatch(/^\+\d+ ms 210\.0 ms$/);
    expect(refund![2]).toBe('refunded 5');
  });

  it('confirmations: what was asked and the answer', async () => {
    const el = await render(ConfirmationTable, toolsReply().record());
    const rows = [...el.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-answer'))).toEqual(['confirmed']);
    expect(rows[0]!.querySelector('code')!.textContent).toBe('refund');
    expect(rows[0]!.querySelector('small')!.textContent).toBe('refunds ask');
    expect(cells(rows[0]!)[2]).toBe('confirmed, always allowed');
  });

  it('usage: tokens per model call and the reply’s totals', async () => {
    const el = await render(UsageTable, toolsReply().record({ costUsd: 0.0123 }));
    expect([...el.querySelectorAll('tbody tr')].map((r) => cells(r).slice(1, 3))).toEqual([
      ['120', '30'],
      ['200', '5'],
    ]);
    expect(cells(el.querySelector('tfoot tr')!)).toEqual(['320', '35', '$0.0123', '']);
  });

  it('middleware chain: the layers of each hook in order, and the harness description', async () => {
    const record = toolsReply().record(
      {},
      {
        chain: [
          { hook: 'onAgent', layers: ['devtools', 'RetryMiddleware'] },
          { hook: 'onActing', layers: [] },
        ],
        harness: { parts: ['todos'] },
      },
    );
    const el = await render(ChainView, record);
    const hooks = [...el.querySelectorAll('dt')].map((d) => d.textContent.trim());
    expect(hooks).toEqual(['onAgent', 'onActing']);
    expect([...el.querySelectorAll('dd')[0]!.querySelectorAll('li')].map((l) => l.textContent)).toEqual([
      'devtools',
      'RetryMiddleware',
    ]);
    expect(el.querySelectorAll('dd')[1]!.textContent).toContain('no middleware');
    expect(el.querySelector('pre')!.textContent).toContain('"todos"');
  });
});
