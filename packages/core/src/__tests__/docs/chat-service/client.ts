import { lastValueFrom, share } from 'rxjs';
import { fromAgentEventStream, pendingConfirmations, type PendingToolCall, toText } from '../../../index.js';

/** What the page does: show the reply's text as it grows, ask the person about the waiting calls. */
export interface ChatView {
  showText(text: string): void;
  approve(calls: readonly PendingToolCall[]): Promise<boolean>;
}

/** Sends a message and follows its reply, answering the reply's confirmations, until it is done. */
export async function chat(baseUrl: string, sessionId: string, message: string, view: ChatView): Promise<void> {
  let path = 'messages';
  let body: unknown = { message };
  for (;;) {
    const events$ = fromAgentEventStream(`${baseUrl}/sessions/${sessionId}/${path}`, {
      init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    }).pipe(share()); // one request, two readers
    const text = events$.pipe(toText()).subscribe({ next: (t) => view.showText(t), error: () => {} });
    const waiting = await lastValueFrom(events$.pipe(pendingConfirmations())); // rejects on a failed request
    text.unsubscribe();
    if (waiting.length === 0) return; // the reply is done
    const ok = await view.approve(waiting); // a dialog: "Refund 80 EUR on A-17?"
    path = 'confirmations';
    body = { results: waiting.map((call) => ({ toolCallId: call.id, confirmed: ok })) };
  }
}
