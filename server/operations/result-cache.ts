/** A small LRU with expiry, for results keyed by template digest and parameters (`useCache`). */
export class ResultCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();

  constructor(
    private readonly capacity: number,
    private readonly ttlMs: number,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires < Date.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * The cached result for this template and these parameters, or `compute`'s, kept for next
   * time; with `enabled` false the cache is neither read nor written (`useCache: false`).
   */
  async remember(enabled: boolean, digest: string, parameters: unknown, compute: () => Promise<T>): Promise<T> {
    if (!enabled) return compute();
    const key = `${digest}:${JSON.stringify(parameters)}`;
    const cached = this.get(key);
    if (cached) return cached;
    const value = await compute();
    this.set(key, value);
    return value;
  }

  set(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
