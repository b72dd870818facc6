import type { SearchIndex } from '../search/search-index.js';
import { embeddingsOf, type StationStore } from '../store/store.js';
import type { EnrollOutcome, Gallery } from './gallery.js';
import { Mutex } from './mutex.js';

/** The one-station gallery: the station's own SQLite store, with its index updated on each write. */
export function sqliteGallery(store: StationStore): Gallery {
  let follower: { index: SearchIndex; modelId: string } | null = null;
  // Screening awaits (it may search the index), so the check-then-write of enrollments is
  // serialized here; SQLite's own transaction covers only the write.
  const writes = new Mutex();
  const reindex = (idPersona: string) => {
    if (!follower) return;
    const embeddings = embeddingsOf(store, idPersona, follower.modelId);
    if (embeddings.length > 0) follower.index.set(idPersona, embeddings);
    else follower.index.remove(idPersona);
  };
  return {
    backend: 'sqlite',
    location: 'SQLite (directorio de datos de la estación)',
    attach(index, modelId, options) {
      follower = { index, modelId };
      if (!options?.prefilled) store.forEachEmbedding(modelId, (idPersona, embedding) => index.add(idPersona, embedding));
      return Promise.resolve();
    },
    enroll: <R>(idPersona: string, samples: Parameters<Gallery['enroll']>[1], options: Parameters<Gallery['enroll']>[2]) =>
      writes.run(async (): Promise<EnrollOutcome<R>> => {
        const rejection = options.screen
          ? await options.screen({ existing: options.replace ? [] : store.listSamples(idPersona), candidates: 'index' })
          : null;
        if (rejection !== null) return { stored: false, rejection: rejection as R };
        const result = store.enrollPerson(idPersona, samples, { replace: options.replace });
        reindex(idPersona);
        return { stored: true, ...result };
      }),
    getPerson: (idPersona) => Promise.resolve(store.getPerson(idPersona)),
    listPersons: (query) => Promise.resolve(store.listPersons(query)),
    listSamples: (idPersona) => Promise.resolve(store.listSamples(idPersona)),
    deletePerson: (idPersona) =>
      writes.run(() => {
        const removed = store.deletePerson(idPersona);
        follower?.index.remove(idPersona);
        return Promise.resolve(removed);
      }),
    countPersons: () => Promise.resolve(store.countPersons()),
    // The store belongs to the station (tokens and audit live there too); it closes it.
    close: () => Promise.resolve(),
  };
}
