// The chat page: useChat of @ai-sdk/react reading the rxscope server's UI message stream.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useState } from 'react';

type Part = UIMessage['parts'][number];

function ToolPart({
  part,
  onApprove,
}: {
  part: Part & { toolCallId: string };
  onApprove: (id: string, ok: boolean) => void;
}) {
  const p = part as unknown as {
    type: string;
    state: string;
    input?: unknown;
    output?: unknown;
    approval?: { id: string };
  };
  return (
    <div className="tool" data-state={p.state}>
      <code>
        {p.type.slice('tool-'.length)}({JSON.stringify(p.input ?? {})})
      </code>
      {p.state === 'output-available' && <span className="output"> → {JSON.stringify(p.output)}</span>}
      {p.state === 'approval-requested' && p.approval && (
        <span>
          {' '}
          <button onClick={() => onApprove(p.approval!.id, true)}>Approve</button>
          <button onClick={() => onApprove(p.approval!.id, false)}>Deny</button>
        </span>
      )}
    </div>
  );
}

export function App() {
  const { messages, sendMessage, status, error, addToolApprovalResponse } = useChat({
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    // An answered approval goes back to the server at once (it continues the suspended reply).
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const shared = [...messages]
    .reverse()
    .flatMap((m) => m.parts)
    .find((p) => p.type === 'data-shared-state') as { data: unknown } | undefined;
  return (
    <main data-status={status}>
      <h1>rxscope · React chat</h1>
      <pre className="shared-state">{shared ? JSON.stringify(shared.data) : ''}</pre>
      {messages.map((m) => (
        <div key={m.id} className={`message ${m.role}`}>
          {m.parts.map((part, i) => {
            if (part.type === 'text')
              return (
                <p key={i} className="text">
                  {part.text}
                </p>
              );
            if (part.type === 'reasoning')
              return (
                <p key={i} className="reasoning">
                  {part.text}
                </p>
              );
            if (part.type === 'data-tool-progress')
              return (
                <p key={i} className="progress">
                  {(part.data as { message: string }).message}
                </p>
              );
            if ('toolCallId' in part)
              return (
                <ToolPart
                  key={i}
                  part={part}
                  onApprove={(id, approved) => void addToolApprovalResponse({ id, approved })}
                />
              );
            return null;
          })}
          {m.role === 'assistant' && (m.metadata as { usage?: { totalTokens: number } } | undefined)?.usage && (
            <small className="usage">
              {(m.metadata as { usage: { totalTokens: number } }).usage.totalTokens} tokens
            </small>
          )}
        </div>
      ))}
      {error && <p className="error">{error.message}</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="Message" value={input} onChange={(e) => setInput(e.target.value)} />
        <button type="submit" disabled={status === 'streaming' || status === 'submitted'}>
          Send
        </button>
      </form>
    </main>
  );
}
