/** The kill functions of a session's running commands; `killAll` on release. */
export class SessionProcesses {
  private readonly kills = new Set<() => void>();
  private released = false;

  /** Registers a running command; returns the function that unregisters it. */
  readonly track = (kill: () => void): (() => void) => {
    if (this.released) kill();
    this.kills.add(kill);
    return () => this.kills.delete(kill);
  };

  get running(): number {
    return this.kills.size;
  }

  get isReleased(): boolean {
    return this.released;
  }

  killAll(): void {
    this.released = true;
    for (const kill of [...this.kills]) kill();
    this.kills.clear();
  }
}
