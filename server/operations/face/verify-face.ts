import { cosine } from '../../matching/index.js';
import type { OperationHandler } from '../operation-handler.js';
import { BASE_ANALYSIS, type FaceContext, round1 } from './face-context.js';
import { selectFrames } from './frame-selection.js';

/** verificar-UI: the capture's major face against the person's stored samples (1:1), best sample. */
export function verifyFace(ctx: FaceContext): OperationHandler<'verify'> {
  const { engine, gallery, policy } = ctx;
  return async ({ request, templates }) => {
    const { idPersona } = request;
    const threshold = request.parametros.threshold ?? ctx.verifyThreshold;
    if (!(await gallery.getPerson(idPersona))) return { status: 'INEXISTENT', idPersona, motivo: 'idPersona no está enrolado' };
    const samples = (await gallery.embeddingsOf(idPersona)).filter((s) => s.modelId === engine.modelId);
    if (samples.length === 0)
      return {
        status: 'WITHOUT_TEMPLATE',
        idPersona,
        motivo: `la persona no tiene muestras del modelo ${engine.modelId}; vuelva a enrolarla`,
      };
    const selection = selectFrames(await ctx.analyze(templates.template!, BASE_ANALYSIS), {
      onlyMajor: true,
      impostors: policy.impostors,
    });
    if (!selection.ok) return { status: selection.status, idPersona, motivo: selection.motivo };
    const best = Math.max(...samples.map((s) => cosine(s.embedding, selection.best.face.embedding!)));
    const s = ctx.score(best);
    return {
      status: s.confidence >= threshold ? 'CHECK_CONFIDENCE' : 'NOT_VERIFIED',
      idPersona,
      threshold: round1(threshold),
      ...s,
    };
  };
}
