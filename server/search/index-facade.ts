import type { SearchIndex } from './search-index.js';

/**
 * The operations' view of an index that may be replaced under them (a damaged one rebuilt or
 * reloaded): each call goes to the index of the moment. A call that throws is handed to `failed`
 * with whether it was an update; `failed` rethrows, or repairs and returns to have the call tried
 * once more on the index then current.
 */
export function indexFacade(current: () => SearchIndex, failed: (error: unknown, update: boolean) => void): SearchIndex {
  const guarded = <T>(f: () => T, update: boolean): T => {
    try {
      return f();
    } catch (error) {
      failed(error, update);
      return f();
    }
  };
  return {
    get personCount() {
      return current().personCount;
    },
    get sampleCount() {
      return current().sampleCount;
    },
    set: (id, embeddings) => guarded(() => current().set(id, embeddings), true),
    add: (id, embedding) => guarded(() => current().add(id, embedding), true),
    remove: (id) => guarded(() => current().remove(id), true),
    personIds: () => current().personIds(),
    search: (probe, k, exclude) => guarded(() => current().search(probe, k, exclude), false),
    sampleSum: () => guarded(() => current().sampleSum(), false),
  };
}
