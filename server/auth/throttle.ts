/**
 * Failed authentications per client address in a fixed window. Past the limit, the address's
 * requests that do not carry a valid token are refused with 429 until the window ends; a valid
 * token always passes, so an integrator with a stale token on 127.0.0.1 cannot lock out the
 * operator console on the same address.
 */
export class FailedAuthThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds an unauthenticated request from the address must wait, otherwise 0. */
  retryAfter(address: string): number {
    const w = this.current(address);
    if (!w || w.failures < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000));
  }

  recordFailure(address: string): void {
    const w = this.current(address);
    if (w) w.failures++;
    else this.windows.set(address, { start: this.now(), failures: 1 });
    if (this.windows.size > 10_000) this.prune();
  }

  private current(address: string) {
    const w = this.windows.get(address);
    if (w && this.now() - w.start >= this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }

  private prune(): void {
    for (const address of [...this.windows.keys()]) this.current(address);
  }
}
