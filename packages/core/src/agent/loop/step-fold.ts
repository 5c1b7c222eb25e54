import { Observable } from 'rxjs';
import type { AgentEvent } from '../../event/events.js';
import { Relay } from '../operator-relay.js';
import type { ReplyStep, StepOutput, StepScope } from './steps.js';

/**
 * The fold both kinds of step share: a step's events applied to the reply and passed on, then
 * the step that follows. Hints added since the last event go out before each event, in the
 * order the reply message holds them; when the events complete, the hints not emitted yet go
 * out, then `following()` names the next step. A throw there fails the reply (as an error
 * notification the reply run turns into `REPLY_END {finishReason: 'error'}`).
 *
 * One relay per step instead of tap + concat + defer: this runs for every event of every reply.
 *
 * @example
 * ```ts
 * return foldStep(scope, events, () => (calls.length ? { kind: 'act', calls } : doneStep('completed')));
 * ```
 */
export function foldStep(
  scope: StepScope,
  events: Observable<AgentEvent>,
  following: () => ReplyStep,
): Observable<StepOutput> {
  const { conversation } = scope;
  return new Observable<StepOutput>((subscriber) => {
    new Relay<AgentEvent, StepOutput>(subscriber, {
      next: (e, down) => {
        if (conversation.hasHints) for (const h of conversation.takeHints()) down.next(h);
        scope.apply(e);
        down.next(e);
      },
      complete: (down) => {
        for (const e of conversation.takeHints()) down.next(e);
        let step: ReplyStep;
        try {
          step = following();
        } catch (err) {
          down.error(err);
          return;
        }
        down.next(step);
        down.complete();
      },
    }).subscribeTo(events);
  });
}
