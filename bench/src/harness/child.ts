/**
 * Child process of `runInChild`: imports a scenario module, calls one of its exported functions
 * with the arguments it was sent, sends back the result and exits. Each contender of a memory
 * scenario runs in such a fresh process, so that its peak RSS and heap are its own.
 */
interface ChildRequest {
  readonly module: string;
  readonly fn: string;
  readonly args: unknown;
}

process.once('message', (request: ChildRequest) => {
  // Also exit if the parent goes away.
  process.once('disconnect', () => process.exit(0));
  void (async () => {
    try {
      const mod = (await import(request.module)) as Record<string, (args: unknown) => Promise<unknown>>;
      const fn = mod[request.fn];
      if (typeof fn !== 'function') throw new Error(`${request.module} exports no function ${request.fn}`);
      const result = await fn(request.args);
      // Stay alive (sockets, handles and all) until the parent has looked at the outside world.
      process.once('message', () => process.exit(0));
      process.send!({ ok: true, result });
    } catch (e) {
      process.send!({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, () =>
        process.exit(1),
      );
    }
  })();
});
