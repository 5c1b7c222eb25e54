import { filter, map } from 'rxjs';
import { isEvent, type Agent } from '../../../index.js';

export const activityLines = (agent: Agent) =>
  agent.reply('go').pipe(
    filter(isEvent('TOOL_CALL_START', 'TOOL_RESULT_END', 'TEXT_BLOCK_DELTA')),
    map((e) => {
      switch (e.type) {
        case 'TOOL_CALL_START':
          return `call ${e.name}`;
        case 'TOOL_RESULT_END':
          return `result ${e.status}`;
        case 'TEXT_BLOCK_DELTA':
          return e.delta;
      }
    }),
  );
// 'call wait', 'call add', 'result success', 'result success', 'Both ', 'done.'
