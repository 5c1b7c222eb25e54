import { RxscopeError } from '@rxscope/core';
import { McpServerClosedError } from './mcp/connection.js';
import { McpToolError } from './mcp/mcp-tool.js';
import { LimitExceededError } from './limit-exceeded-error.js';
import { ReplyTimeoutError, ToolTimeoutError } from './timeout/index.js';

describe('errors of the built-in middlewares', () => {
  it('extend RxscopeError with a stable code, so callers branch with one instanceof', () => {
    const errors: [RxscopeError, string][] = [
      [
        new LimitExceededError('3 per reply', { code: 'tool_call_limit', scope: 'reply', limit: 3, used: 3 }),
        'tool_call_limit',
      ],
      [new ToolTimeoutError('search', 1000), 'timeout'],
      [new ReplyTimeoutError(5000), 'timeout'],
      [new McpServerClosedError('files', 'the process exited'), 'mcp_server_closed'],
      [new McpToolError('files', 'read', [{ type: 'text', text: 'no such file' }]), 'mcp_tool_failed'],
    ];
    for (const [error, code] of errors) {
      expect(error).toBeInstanceOf(RxscopeError);
      expect([error.name, error.code]).toEqual([error.constructor.name, code]);
    }
  });
});
