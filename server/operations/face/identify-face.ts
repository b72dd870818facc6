import type { OperationHandler } from '../operation-handler.js';
import { BASE_ANALYSIS, type FaceContext, round1 } from './face-context.js';
import { framesPassing, selectFrames } from './frame-selection.js';
import { identificationOnGallery } from './identification-scoring.js';

/** identificar-UI: the capture's major face searched in the whole gallery (1:N), candidates above the threshold. */
export function identifyFace(ctx: FaceContext): OperationHandler<'identify'> {
  const { index, policy } = ctx;
  const { identification } = policy;
  return async ({ request, templates }) => {
    const { maxResults } = request.parametros;
    const threshold = request.parametros.threshold ?? ctx.identifyThreshold();
    if (index.personCount === 0) return { status: 'WITHOUT_TEMPLATE', candidates: [], motivo: 'la galería está vacía' };
    const selection = selectFrames(await ctx.analyze(templates.template!, BASE_ANALYSIS), {
      onlyMajor: true,
      impostors: policy.impostors,
    });
    if (!selection.ok) return { status: selection.status, candidates: [], motivo: selection.motivo };
    // A poor probe's genuine score falls while strangers' do not: at a 1:N threshold it is
    // seldom found, and NOT_IDENTIFIED would say the person is not enrolled (docs/api-design.md).
    const usable = framesPassing(selection, {
      minQuality: request.parametros.minQuality ?? policy.identifyMinQuality,
      minIod: request.parametros.minIOD ?? policy.identifyMinIod,
    });
    if (!usable.ok)
      return {
        status: 'LOW_QUALITY',
        candidates: [],
        quality: usable.quality,
        motivo: `la sonda no alcanza la calidad de identificación: capture de nuevo (${usable.shortfall})`,
      };
    const probe = identification.view(usable.frames[0]!.face.embedding!);
    const gallery = identificationOnGallery(identification, index);
    const shift = gallery.shift(probe);
    const candidates = index
      .search(probe, maxResults)
      .map((hit) => ({ idPersona: hit.idPersona, ...ctx.scoreOn(hit.score - shift, gallery.impostors) }))
      .filter((c) => c.confidence >= threshold);
    // The best candidate also at the top, where the vendor's identify result carries it.
    const best = candidates[0];
    return {
      status: best ? 'IDENTIFY_OK' : 'NOT_IDENTIFIED',
      threshold: round1(threshold),
      ...(best ?? {}),
      candidates,
    };
  };
}
