/**
 * Type tests of `serveAgentOverMcp`: an HTTP transport gives a `url: string` (no undefined check
 * before using it), stdio gives the `string | undefined` of `ServedAgent`, and options whose
 * transport is only known at run time still compile. Never run: `tsc -b` checks them.
 */
import type { Agent } from '@rxscope/core';
import { serveAgentOverMcp, type ServeAgentOptions, type ServedAgent, type ServedAgentOverHttp } from '../mcp/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
declare const agent: Agent;
declare const options: ServeAgentOptions;

export async function served(): Promise<void> {
  const overHttp = await serveAgentOverMcp(agent, { transport: { port: 0 } });
  const endpoint: string = overHttp.url; // no `!`, no check
  const overDefaultHttp = await serveAgentOverMcp(agent, { name: 'support', transport: {} });
  const overStdio = await serveAgentOverMcp(agent, { transport: 'stdio' });
  const either = await serveAgentOverMcp(agent, options);
  // @ts-expect-error over stdio there is no URL: it may be undefined
  const noEndpoint: string = overStdio.url;
  // @ts-expect-error a transport only known at run time may be stdio
  const maybe: string = either.url;
  void [endpoint, noEndpoint, maybe, overDefaultHttp];
  type Checks = [
    Expect<Equal<typeof overHttp, ServedAgentOverHttp>>,
    Expect<Equal<typeof overDefaultHttp, ServedAgentOverHttp>>,
    Expect<Equal<typeof overStdio, ServedAgent>>,
    Expect<Equal<typeof either, ServedAgent>>,
    Expect<Equal<ServedAgentOverHttp['url'], string>>,
  ];
  const checks: Checks = [true, true, true, true, true];
  void checks;
}
