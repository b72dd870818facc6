import { cosine, confidenceOf } from '../../matching/index.js';
import type { ScreenInput } from '../../storage/index.js';
import type { OperationHandler } from '../operation-handler.js';
import { BASE_ANALYSIS, type FaceContext } from './face-context.js';
import { framesPassing, selectFrames } from './frame-selection.js';
import { identificationOnGallery } from './identification-scoring.js';

interface EnrollRefusal {
  status: 'DUPLICATED_TEMPLATE' | 'DUPLICATED_SUBJECT_ID';
  idPersona: string;
  duplicatedIdPersona?: string;
  motivo: string;
}

/**
 * enroll-UI: the best frames of the capture (at most three) stored as the person's samples, unless
 * the face is already enrolled as someone else (duplicate search) or the id holds another face.
 */
export function enrollFace(ctx: FaceContext): OperationHandler<'enroll'> {
  const { engine, gallery, index, policy } = ctx;
  const { identification } = policy;
  return async ({ request, templates, log }) => {
    const { idPersona, parametros } = request;
    const template = templates.template!;
    const selection = selectFrames(await ctx.analyze(template, { ...BASE_ANALYSIS, thumbnailWidth: 128 }), {
      onlyMajor: true,
      impostors: policy.impostors,
    });
    if (!selection.ok) return { status: selection.status, idPersona, motivo: selection.motivo };
    const good = framesPassing(selection, { minQuality: policy.enrollMinQuality, minIod: policy.enrollMinIod });
    if (!good.ok)
      return {
        status: 'LOW_QUALITY',
        idPersona,
        quality: good.quality,
        motivo: `ninguna imagen alcanza la calidad de enrolamiento (${good.shortfall})`,
      };
    // The best frames, at most three: several samples of one sitting make later matches steadier.
    const chosen = good.frames.slice(0, 3);
    const probe = chosen[0]!.face.embedding!;

    // The gallery calls this with its whole index, then again inside its write lock with the
    // persons changed since: with a shared gallery, an enrollment made at the same moment on
    // another station is then either seen here or waits for this one.
    const screen = ({ existing: stored, candidates }: ScreenInput): EnrollRefusal | null => {
      if (parametros.duplicateSearch) {
        const threshold = parametros.duplicateThreshold ?? ctx.identifyThreshold();
        const searched = identification.view(probe);
        const hit =
          candidates === 'index'
            ? index.search(searched, 1, idPersona)[0]
            : bestOf(candidates, searched, idPersona, identification.view);
        const gallery = identificationOnGallery(identification, index);
        const confidence = hit ? confidenceOf(hit.score - gallery.shift(searched), gallery.impostors) : 0;
        if (hit && confidence >= threshold) {
          log.warn({ idPersona, duplicatedIdPersona: hit.idPersona }, 'enrolamiento duplicado rechazado');
          return {
            status: 'DUPLICATED_TEMPLATE',
            idPersona,
            duplicatedIdPersona: hit.idPersona,
            motivo: `el rostro ya está enrolado como ${hit.idPersona} (confianza ${confidence} >= ${threshold})`,
          };
        }
      }
      const existing = stored.filter((s) => s.modelId === engine.modelId);
      if (existing.length > 0 && !parametros.replaceSamples) {
        const best = Math.max(...existing.map((s) => cosine(s.embedding, probe)));
        if (confidenceOf(best, policy.impostors) < ctx.verifyThreshold) {
          return {
            status: 'DUPLICATED_SUBJECT_ID',
            idPersona,
            motivo: `idPersona ya está enrolado con otro rostro (confianza ${confidenceOf(best, policy.impostors)}); use replaceSamples para reemplazarlo`,
          };
        }
      }
      return null;
    };
    const result = await gallery.enroll(
      idPersona,
      chosen.map((f) => ({
        modelId: engine.modelId,
        embedding: f.face.embedding!,
        quality: f.quality.score,
        thumbnail: f.face.thumbnail,
      })),
      { replace: parametros.replaceSamples, screen },
    );
    // Searchable as soon as it is durable: the index follows the gallery's writes (index-sync.ts).
    if (!result.stored) return result.rejection;
    return { status: 'SUCCESS', idPersona, samples: result.samples, quality: chosen[0]!.quality.score };
  };
}

/** The closest of a few persons (best sample each), as the index would rank them (on the same view). */
function bestOf(
  persons: ReadonlyMap<string, readonly Float32Array[]>,
  probe: Float32Array,
  exclude: string,
  view: (embedding: Float32Array) => Float32Array,
): { idPersona: string; score: number } | undefined {
  let best: { idPersona: string; score: number } | undefined;
  for (const [idPersona, embeddings] of persons) {
    if (idPersona === exclude) continue;
    for (const e of embeddings) {
      const score = cosine(view(e), probe);
      if (!best || score > best.score) best = { idPersona, score };
    }
  }
  return best;
}
