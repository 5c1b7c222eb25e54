import { defer, from, map, of, tap } from 'rxjs';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { chainsFor } from '../agent/loop/chains.js';
import { toolResultsOf } from '../message/msg.js';
import type { PermissionDecision } from '../permission/engine.js';
import { defineTool } from '../tool/tool.js';
import { ScriptedChatModel } from '../testing/index.js';
import { endOf, ofType, runReply } from '../__tests__/helpers.js';
import type { Middleware, PermissionCheckInput } from './middleware.js';
import { permissionChainFor } from './permission-chain.js';

const read = defineTool({
  name: 'read_file',
  description: '',
  input: z.object({ path: z.string() }),
  readOnly: true,
  execute: () => 'contents',
});
const deploy = defineTool({
  name: 'deploy',
  description: '',
  input: z.object({ env: z.string() }),
  needsApproval: true,
  execute: ({ env }) => `deployed to ${env}`,
});

const calls = (...names: string[]) =>
  new ScriptedChatModel([
    {
      toolCalls: names.map((name, i) => ({
        id: `c${i}`,
        name,
        input: name === 'deploy' ? { env: 'prod' } : { path: 'a' },
      })),
    },
    { text: 'done' },
  ]);
const results = (agent: Agent) =>
  toolResultsOf(agent.context[1]!).map((r) => [
    r.toolCallId,
    r.status,
    r.output.map((o) => (o as { text: string }).text).join(''),
  ]);

describe('onCheckPermission', () => {
  it('turns an ask into an allow for one tenant only; other users are still asked', async () => {
    const tenantApproves: Middleware = {
      onCheckPermission: (_agent, ctx, input, next) =>
        input.decision.behavior === 'ask' && ctx.userId?.startsWith('acme:')
          ? of<PermissionDecision>({ behavior: 'allow', reason: 'acme pre-approves deploys', decidedBy: 'middleware' })
          : next(input),
    };
    const acme = new Agent({ model: calls('deploy'), tools: [deploy], middlewares: [tenantApproves] });
    const events = await runReply(acme, acme.reply('ship it', { userId: 'acme:alice' }));
    expect(endOf(events).finishReason).toBe('completed');
    expect(results(acme)).toEqual([['c0', 'success', 'deployed to prod']]);

    const other = new Agent({ model: calls('deploy'), tools: [deploy], middlewares: [tenantApproves] });
    const asked = await runReply(other, other.reply('ship it', { userId: 'globex:bob' }));
    expect(endOf(asked).finishReason).toBe('awaiting_confirmation');
    expect(ofType(asked, 'REQUIRE_USER_CONFIRM')[0]!.toolCalls[0]).toMatchObject({ id: 'c0', name: 'deploy' });
  });

  it('denies a call the rules allow, with its reason; the loop goes on', async () => {
    const noReads: Middleware = {
      onCheckPermission: (_agent, _ctx, input, next) =>
        input.tool.name === 'read_file'
          ? of<PermissionDecision>({ behavior: 'deny', reason: 'reads are off today', decidedBy: 'middleware' })
          : next(input),
    };
    const agent = new Agent({ model: calls('read_file'), tools: [read], middlewares: [noReads] });
    const events = await runReply(agent, agent.reply('read a'));
    expect(endOf(events).finishReason).toBe('completed');
    expect(results(agent)).toEqual([['c0', 'denied', 'reads are off today']]);
  });

  it('routes an ask to another approver and answers with theirs (asynchronously)', async () => {
    const asked: string[] = [];
    const approver = (call: PermissionCheckInput) =>
      new Promise<boolean>((resolve) => {
        asked.push(`${call.tool.name} ${JSON.stringify(call.input)}: ${call.decision.reason}`);
        setTimeout(() => resolve((call.input as { env: string }).env !== 'prod'), 5);
      });
    const routeToOps: Middleware = {
      onCheckPermission: (_agent, _ctx, input, next) =>
        input.decision.behavior !== 'ask'
          ? next(input)
          : from(approver(input)).pipe(
              map((ok): PermissionDecision =>
                ok
                  ? { behavior: 'allow', reason: 'approved by ops', decidedBy: 'middleware' }
                  : { behavior: 'deny', reason: 'ops refused a production deploy', decidedBy: 'middleware' },
              ),
            ),
    };
    const agent = new Agent({ model: calls('deploy'), tools: [deploy], middlewares: [routeToOps] });
    const events = await runReply(agent, agent.reply('ship it'));
    expect(endOf(events).finishReason).toBe('completed');
    expect(ofType(events, 'REQUIRE_USER_CONFIRM')).toHaveLength(0);
    expect(asked).toEqual(['deploy {"env":"prod"}: "deploy" needs approval before it runs.']);
    expect(results(agent)).toEqual([['c0', 'denied', 'ops refused a production deploy']]);
  });

  it('audits every decision with the user, and the layers run first = outermost, each seeing what the inner ones decided', async () => {
    const log: string[] = [];
    const audit: Middleware = {
      onCheckPermission: (_agent, ctx, input, next) => {
        log.push(`audit enter ${input.tool.name}`);
        return next(input).pipe(
          tap((d) =>
            log.push(`audit ${ctx.userId} ${input.toolCall.id} ${input.tool.name} ${d.behavior} by ${d.decidedBy}`),
          ),
        );
      },
    };
    const allowReads: Middleware = {
      onCheckPermission: (_agent, _ctx, input, next) => {
        log.push(`inner enter ${input.tool.name}`);
        // Hands a changed input inward: the innermost step answers the decision it is given.
        return input.tool.readOnly
          ? next({ ...input, decision: { behavior: 'allow', reason: 'reads ok', decidedBy: 'middleware' } })
          : next(input);
      },
    };
    const agent = new Agent({
      model: calls('read_file', 'deploy'),
      tools: [read, deploy],
      middlewares: [audit, allowReads],
    });
    const events = await runReply(agent, agent.reply('go', { userId: 'u1' }));
    expect(endOf(events).finishReason).toBe('awaiting_confirmation');
    expect(log).toEqual([
      'audit enter read_file',
      'inner enter read_file',
      'audit u1 c0 read_file allow by middleware',
      'audit enter deploy',
      'inner enter deploy',
      'audit u1 c1 deploy ask by tool',
    ]);
  });

  it('a throwing layer answers the call with an error naming the failure; a layer with no decision too', async () => {
    const throwing: Middleware = {
      onCheckPermission: () => {
        throw new Error('policy service down');
      },
    };
    const agent = new Agent({ model: calls('read_file'), tools: [read], middlewares: [throwing] });
    const events = await runReply(agent, agent.reply('read a'));
    expect(endOf(events).finishReason).toBe('completed');
    expect(results(agent)).toEqual([['c0', 'error', 'Permission check of "read_file" failed: policy service down']]);

    const silent: Middleware = { onCheckPermission: () => defer(() => from([] as PermissionDecision[])) };
    const agent2 = new Agent({ model: calls('read_file'), tools: [read], middlewares: [silent] });
    await runReply(agent2, agent2.reply('read a'));
    expect(results(agent2)[0]![2]).toMatch(/onCheckPermission layers answered no decision/);

    const bogus: Middleware = { onCheckPermission: () => of({ behavior: 'maybe' } as unknown as PermissionDecision) };
    const agent3 = new Agent({ model: calls('read_file'), tools: [read], middlewares: [bogus] });
    await runReply(agent3, agent3.reply('read a'));
    expect(results(agent3)[0]![2]).toMatch(/answered \{"behavior":"maybe"\}/);
  });

  it('is skipped when no middleware implements it (the engine decides alone, synchronously)', () => {
    expect(permissionChainFor([{ onAgent: (_a, _c, i, next) => next(i) }])).toBeUndefined();
    expect(chainsFor([{ onModelCall: (_a, _c, i, next) => next(i) }]).permission).toBeUndefined();
    expect(chainsFor([{ onCheckPermission: (_a, _c, i, next) => next(i) }]).permission).toBeInstanceOf(Function);
  });

  it('a non-function onCheckPermission is refused when the agent is built', () => {
    expect(
      () => new Agent({ model: calls(), middlewares: [{ onCheckPermission: 'yes' } as unknown as Middleware] }),
    ).toThrow(/middlewares\[0\]\.onCheckPermission must be a function, got the string "yes"/);
  });
});
