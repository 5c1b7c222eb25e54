import { type HarnessPartDefinition, objectOf, offPart, onPart } from '../harness-part.js';
import { AsyncToolMiddleware, type AsyncToolOptions } from './async-tool/index.js';

/** The options the background tool calls part reads. */
export interface AsyncToolPartOptions {
  readonly asyncTools?: boolean | Omit<AsyncToolOptions, 'tasks'>;
  readonly inbox?: unknown;
}

/** Tool calls that outlive a timeout go to the background; their results come through the inbox. */
export const asyncToolPart: HarnessPartDefinition<AsyncToolPartOptions> = {
  build(options, env) {
    const name = 'AsyncToolMiddleware';
    const asyncTools = options.asyncTools ?? true;
    if (asyncTools === false) return offPart(name, 'asyncTools', 'asyncTools: false');
    if (options.inbox === false)
      return offPart(name, 'asyncTools', 'needs the inbox (inbox: false), which delivers the late results');
    const middleware = new AsyncToolMiddleware({ ...objectOf(asyncTools), tasks: env.tasks });
    const ms = middleware.timeoutMs;
    const after = ms % 1000 === 0 ? `${(ms / 1000).toLocaleString('en-US')} s` : `${ms} ms`;
    return onPart(
      name,
      'asyncTools',
      `a tool call still running after ${after} gets a placeholder and goes on in the background; its result comes through the inbox`,
      { middleware },
    );
  },
};
