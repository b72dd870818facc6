import { sniffImage } from '../../../common/uitemplate/index.js';
import { ApiError } from '../../domain/index.js';
import type { FrameAnalysis } from '../../engines/index.js';
import { cosine } from '../../matching/index.js';
import { engineError } from '../engine-errors.js';
import type { OperationHandler } from '../operation-handler.js';
import { extractedFace, EXTRACT_DEFAULTS, extractOptions } from './extract-face.js';
import { BASE_ANALYSIS, type FaceContext } from './face-context.js';
import { facePropertiesOf } from './face-properties.js';
import { selectFrames } from './frame-selection.js';
import { assessPresentation, spoofDecision } from './presentation-attack.js';
import { judgedStillMotivo } from './still-judgement.js';

/**
 * verificar-spoof-rostro: whether a capture sequence shows a live person or an attack; with
 * `extractFace`, the face as extraction describes it; with `image`, whether that photo is the same person.
 */
export function detectSpoof(ctx: FaceContext): OperationHandler<'spoof'> {
  const { engine, policy } = ctx;
  return async ({ request, templates }) => {
    const template = templates.template!;
    const extract = request.parametros.extractFace;
    const singleFrame = request.parametros.singleFrame ?? policy.spoofSingleFrame;
    // With extractFace, the face as extraction describes it at its default parameters; the
    // still cues only when a single image is to be judged.
    const judge = singleFrame === 'judge';
    const analyses = await ctx.analyze(
      template,
      extract
        ? { ...extractOptions(EXTRACT_DEFAULTS), presentation: true, stillCues: judge }
        : { ...BASE_ANALYSIS, presentation: true, stillCues: judge },
    );
    const selection = selectFrames(analyses, { onlyMajor: true, impostors: policy.impostors });
    if (!selection.ok) return { status: selection.status, motivo: selection.motivo };
    const verdict = assessPresentation(selection.all);
    const best = selection.best;
    // A judged still is decided at its own operating point unless the request names a threshold.
    const threshold = request.parametros.threshold ?? verdict.judgedStill?.threshold ?? policy.spoofThreshold;
    const { status, confidence } = spoofDecision(verdict, threshold, singleFrame);
    const data = {
      status,
      confidence,
      threshold,
      cues: verdict.cues,
      uiTemplateMetadata: { fechaCreacionTemplate: template.fechaCreacionTemplate },
      ...(verdict.judgedStill
        ? { motivo: judgedStillMotivo(status) }
        : status === 'TEMPLATE_WITHOUT_VIDEO'
          ? {
              motivo:
                'una sola imagen usable no prueba que haya una persona viva (una foto impresa que llena el cuadro se ve igual): capture una secuencia de cuadros',
            }
          : verdict.evidence === 'single-frame'
            ? { motivo: 'una sola imagen: sin secuencia no se puede comprobar parpadeo ni movimiento 3D' }
            : {}),
      ...(extract
        ? {
            ...extractedFace(best, engine.modelId),
            properties: facePropertiesOf(best.face, best.analysis, best.quality, EXTRACT_DEFAULTS),
          }
        : {}),
    };
    if (!request.image) return data;
    const photo = decodePhoto(request.image);
    let photoAnalysis: FrameAnalysis;
    try {
      photoAnalysis = await engine.analyzeImage(photo, BASE_ANALYSIS);
    } catch (error) {
      throw engineError(error, 'image');
    }
    const photoSelection = selectFrames([photoAnalysis], { onlyMajor: true, impostors: policy.impostors });
    if (!photoSelection.ok)
      return { ...data, status: 'IMAGE_WITHOUT_FACE' as const, motivo: `la foto de 'image': ${photoSelection.motivo}` };
    const s = ctx.score(cosine(photoSelection.best.face.embedding!, best.face.embedding!));
    return { ...data, samePerson: { match: s.confidence >= ctx.verifyThreshold, ...s } };
  };
}

function decodePhoto(text: string): Uint8Array {
  const clean = text.replace(/^data:image\/[a-z]+;base64,/, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(clean))
    throw new ApiError('BAD_REQUEST', "Solicitud inválida: campo 'image': no es base64 válido.");
  const bytes = new Uint8Array(Buffer.from(clean, clean.includes('-') || clean.includes('_') ? 'base64url' : 'base64'));
  const sniffed = sniffImage(bytes);
  if ('error' in sniffed) throw new ApiError('BAD_REQUEST', `Solicitud inválida: campo 'image': ${sniffed.error}.`);
  return bytes;
}
