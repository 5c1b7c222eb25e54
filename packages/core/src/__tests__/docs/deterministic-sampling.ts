import type { Observable } from 'rxjs';
import type { AgentHandle, AgentEvent, Middleware, ModelCallInput, Next, RuntimeContext } from '../../index.js';

/** Changes what inner layers see: a new input object, never a mutated one. */
export class DeterministicSampling implements Middleware {
  onModelCall(
    _agent: AgentHandle,
    _ctx: RuntimeContext,
    input: ModelCallInput,
    next: Next<ModelCallInput>,
  ): Observable<AgentEvent> {
    return next({ ...input, options: { ...input.options, temperature: 0 } });
  }
}
