// A component built on injectAgentChat, rendered by TestBed without zone.js: the view follows the
// chat's signals as a reply streams, and a click answers a confirmation (real SSE endpoint).
import { ChangeDetectionStrategy, Component } from '@angular/core';
import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { ScriptedChatModel } from '@rxscope/core/testing';
import { injectAgentChat } from '../agent-chat.js';
import { provideRxscope } from '../provide-rxscope.js';
import { startChatServer, until, type ChatServer } from './chat-server.js';

@Component({
  selector: 'test-chat',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @for (m of chat.messages(); track m.id) {
      <p class="message" [attr.data-role]="m.role">{{ m.text }}</p>
      @for (call of m.toolCalls; track call.id) {
        <span class="call">{{ call.name }}: {{ call.status }}</span>
      }
    }
    @for (p of chat.pendingConfirmations(); track p.toolCallId) {
      <button class="allow" (click)="chat.confirm(p.toolCallId)">Allow {{ p.name }}</button>
    }
    <output class="status">{{ chat.status() }}</output>
    <output class="usage">{{ chat.usage().outputTokens }}</output>
  `,
})
class ChatView {
  readonly chat = injectAgentChat();
}

describe('a component on injectAgentChat (TestBed, zoneless)', () => {
  let server: ChatServer;
  let fixture: ComponentFixture<ChatView>;
  const text = (selector: string) =>
    Array.from((fixture.nativeElement as HTMLElement).querySelectorAll<HTMLElement>(selector)).map((e) =>
      (e.textContent ?? '').trim(),
    );

  beforeEach(async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'refund_order', input: { orderId: '42' } }], usage: { inputTokens: 5, outputTokens: 3 } },
      { text: ['Order 42 ', 'is refunded.'], usage: { inputTokens: 9, outputTokens: 4 } },
    ]);
    server = await startChatServer(model);
    TestBed.configureTestingModule({ providers: [provideRxscope({ url: server.url, transport: 'sse' })] });
    fixture = TestBed.createComponent(ChatView);
    await fixture.whenStable();
  });
  afterEach(async () => {
    fixture.destroy();
    await server.close();
  });

  it('renders the reply, asks for the confirmation, and a click resumes the reply', async () => {
    expect(text('.status')).toEqual(['idle']);
    fixture.componentInstance.chat.send('Refund order 42');
    await until(() => fixture.componentInstance.chat.status() === 'awaiting_confirmation', 'the confirmation');
    await fixture.whenStable();
    expect(text('.status')).toEqual(['awaiting_confirmation']);
    expect(text('.call')).toEqual(['refund_order: awaiting_confirmation']);
    expect(text('button.allow')).toEqual(['Allow refund_order']);
    expect(server.refunds).toEqual([]);

    (fixture.nativeElement as HTMLElement).querySelector<HTMLButtonElement>('button.allow')!.click();
    await until(() => fixture.componentInstance.chat.status() === 'idle', 'the resumed reply');
    await fixture.whenStable();
    expect(server.refunds).toEqual(['42']);
    expect(text('button.allow')).toEqual([]);
    expect(text('.call')).toEqual(['refund_order: success']);
    expect(text('.message')).toEqual(['Refund order 42', 'Order 42 is refunded.']);
    expect(text('.usage')).toEqual(['7']);
  });
});
