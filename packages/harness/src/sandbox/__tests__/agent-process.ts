// An agent-like process for the sandbox specs (run with tsx): acquires a sandbox of the kind given,
// runs one command in the workspace given ({agentPid} in it becomes this process's pid) and prints
// its events as NDJSON on stdout; the spec SIGKILLs it mid-command, or reads the exit event.
import { BubblewrapSandbox } from '../bubblewrap-sandbox.js';
import { LocalSandbox } from '../local-sandbox.js';

async function main(): Promise<void> {
  const [kind, workspace, command, isolation] = process.argv.slice(2);
  if (!kind || !workspace || !command) throw new Error('usage: agent-process <local|bubblewrap> <workspace> <command>');
  const sandbox =
    kind === 'bubblewrap'
      ? new BubblewrapSandbox()
      : new LocalSandbox(isolation ? { processIsolation: isolation as 'process-group' } : {});
  const session = await sandbox.acquire({ workspace });
  session.exec(command.replaceAll('{agentPid}', String(process.pid)), { timeoutMs: 60_000 }).subscribe({
    next: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
    error: (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
    complete: () => void session.release().then(() => process.exit(0)),
  });
}

void main();
