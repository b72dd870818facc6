import type { SearchIndex } from '../search/search-index.js';
import type { StationStore } from '../store/store.js';
import type { OperationHandlers } from '../http/operation-route.js';

/** Listing, reading and deleting persons: gallery only, no engine needed. */
export function galleryOperations(store: StationStore, index: SearchIndex | null): OperationHandlers {
  return {
    listPersons: ({ request }) => ({
      status: 'SUCCESS',
      ...store.listPersons({ prefix: request.filtro, limit: request.limit, offset: request.offset }),
    }),
    getPerson: ({ request }) => {
      const person = store.getPerson(request.idPersona);
      if (!person) return { status: 'INEXISTENT', person: null };
      const sampleList = store.listSamples(request.idPersona).map((s) => ({
        id: s.id,
        modelId: s.modelId,
        quality: s.quality,
        createdAt: s.createdAt,
        thumbnail: s.thumbnail ? Buffer.from(s.thumbnail).toString('base64') : null,
      }));
      return { status: 'SUCCESS', person: { ...person, sampleList } };
    },
    deletePerson: ({ request }) => {
      const removed = store.deletePerson(request.idPersona);
      index?.remove(request.idPersona);
      return removed === null
        ? { status: 'INEXISTENT', idPersona: request.idPersona, samplesDeleted: 0 }
        : { status: 'SUCCESS', idPersona: request.idPersona, samplesDeleted: removed };
    },
  };
}
