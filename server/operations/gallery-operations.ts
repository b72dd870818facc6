import type { Gallery } from '../storage/index.js';
import type { OperationHandlers } from './operation-handler.js';

/** Listing, reading and deleting persons: gallery only, no engine needed (the index follows the gallery: index-sync.ts). */
export function galleryOperations(gallery: Gallery): OperationHandlers {
  return {
    listPersons: async ({ request }) => ({
      status: 'SUCCESS',
      ...(await gallery.listPersons({ prefix: request.filtro, limit: request.limit, offset: request.offset })),
    }),
    getPerson: async ({ request }) => {
      const person = await gallery.getPerson(request.idPersona);
      if (!person) return { status: 'INEXISTENT', person: null };
      const sampleList = (await gallery.listSamples(request.idPersona)).map((s) => ({
        id: s.id,
        modelId: s.modelId,
        quality: s.quality,
        createdAt: s.createdAt,
        thumbnail: s.thumbnail ? Buffer.from(s.thumbnail).toString('base64') : null,
      }));
      return { status: 'SUCCESS', person: { ...person, sampleList } };
    },
    deletePerson: async ({ request }) => {
      const removed = await gallery.deletePerson(request.idPersona);
      return removed === null
        ? { status: 'INEXISTENT', idPersona: request.idPersona, samplesDeleted: 0 }
        : { status: 'SUCCESS', idPersona: request.idPersona, samplesDeleted: removed };
    },
  };
}
