import { createReplyReducer, type Agent, type Msg } from '../../../index.js';

export function showReply(agent: Agent, render: (msg: Msg) => void) {
  const reducer = createReplyReducer({ source: agent.name });
  agent.reply('go').subscribe({
    next: (e) => {
      reducer.apply(e);
      render(reducer.message()); // a fresh immutable snapshot of the message so far
    },
    error: console.error,
  });
}
