/**
 * docs/middleware.md, "Cut it short: close what is open": the SilenceGuard example as written in
 * the guide, checked for what its reader relies on — the cut call ends well formed, the request is
 * cancelled, and the reply ends with the guard's error.
 */
import { lastValueFrom, toArray } from 'rxjs';
import { Agent } from '../index.js';
import { assertConsistentConversation, assertReplyGrammar, ModelTestingController } from '../testing/index.js';
import { SilenceGuard } from './docs/silence-guard.js';

describe('middleware guide: SilenceGuard', () => {
  it('ends a stalled model call well formed, cancels the request and fails the reply with the guard error', async () => {
    const controller = new ModelTestingController();
    const agent = new Agent({ name: 'support', model: controller.model, middlewares: [new SilenceGuard(30)] });
    const done = lastValueFrom(agent.reply('hi').pipe(toArray()));
    await new Promise((r) => setTimeout(r, 5));
    const call = controller.expectOne('hi').streamText('Hel');
    const events = await done;
    const end = assertReplyGrammar(events);
    expect(end).toMatchObject({ finishReason: 'error', error: { code: 'timeout' } });
    const modelEnd = events.find((e) => e.type === 'MODEL_CALL_END');
    expect(modelEnd).toMatchObject({ finishReason: 'error', error: { message: 'the model sent nothing for 30 ms' } });
    expect(call.cancelled).toBe(true);
    assertConsistentConversation(agent.context);
    expect(agent.context.at(-1)?.content).toEqual([{ type: 'text', text: 'Hel' }]);
  });
});
