import type { z } from 'zod';
import {
  extractParametersSchema,
  type ExtractParameters,
  type extractFaceResponseSchema,
} from '../../../common/api/face-schemas.js';
import type { DecodedTemplate } from '../../../common/uitemplate/index.js';
import { assessQuality, type AnalyzeOptions, type FrameAnalysis } from '../../engines/index.js';
import type { ImpostorModel } from '../../matching/index.js';
import type { OperationHandler } from '../operation-handler.js';
import { ResultCache } from '../result-cache.js';
import { b64, type FaceContext } from './face-context.js';
import { encodeFaceTemplate } from './face-template.js';
import { extractGate, facePropertiesOf } from './face-properties.js';
import { selectFrames, type UsableFrame } from './frame-selection.js';

/** Extraction's parameters when a request gives none (a spoof check's `extractFace` uses them). */
export const EXTRACT_DEFAULTS = extractParametersSchema.parse({});

type ExtractData = Omit<z.infer<typeof extractFaceResponseSchema>, 'txId' | 'exception'>;

/** extraer-datos-rostro-UI: the major face's image, template and properties; the same template asked again is answered from a cache. */
export function extractFace(ctx: FaceContext): OperationHandler<'extractFace'> {
  const cache = new ResultCache<ExtractData>(64, 10 * 60_000);
  return async ({ request, templates }) => {
    const template = templates.template!;
    const params = request.parametros;
    return cache.remember(params.useCache, template.digest, params, async () => {
      const analyses = await ctx.analyze(template, extractOptions(params), params.videoFramesSeq);
      return extractResult(analyses, template, params, ctx.policy.impostors, ctx.engine.modelId);
    });
  };
}

export function extractOptions(params: ExtractParameters): AnalyzeOptions {
  return {
    embedding: true,
    // The facial-hair traits weigh the gender estimate (reported only when asked for).
    ageGender: params.detectAge || params.detectGender || params.detectTraitsAndActions,
    emotion: params.detectEmotion || params.detectExpression,
    presentation: false,
    traits: params.detectTraitsAndActions,
    thumbnailWidth: params.thumbnailWidth,
    portrait: true,
    scaleH: params.scaleH,
    frameJpeg: true,
    clahe: { enabled: params.useCLAHE, minClip: params.minCLAHE, maxClip: params.maxCLAHE },
    minFaceScore: minFaceScoreOf(params),
  };
}

/** The detector confidence of a sure face, as the engine takes it (0..1). */
function minFaceScoreOf(params: ExtractParameters): number {
  return params.minConfidence / 100;
}

export function extractedFace(frame: UsableFrame, modelId: string) {
  const face = frame.face;
  return {
    face:
      face.portrait && face.embedding
        ? { image: b64(face.portrait), template: encodeFaceTemplate(modelId, face.embedding) }
        : null,
    faceImage: frame.analysis.frameJpeg ? b64(frame.analysis.frameJpeg) : null,
  };
}

function extractResult(
  analyses: FrameAnalysis[],
  template: DecodedTemplate,
  params: ExtractParameters,
  impostors: ImpostorModel,
  modelId: string,
): ExtractData {
  const uiTemplateMetadata = { fechaCreacionTemplate: template.fechaCreacionTemplate };
  const empty = {
    face: null,
    faceImage: analyses[0]?.frameJpeg ? b64(analyses[0].frameJpeg) : null,
    properties: null,
    uiTemplateMetadata,
  };
  const selection = selectFrames(analyses, {
    onlyMajor: params.detectOnlyMajorFace,
    impostors,
    minFaceScore: minFaceScoreOf(params),
  });
  if (!selection.ok) return { status: selection.status, motivo: selection.motivo, ...empty };
  const best = selection.best;
  const quality = assessQuality(best.face);
  const gate = extractGate(best.face, quality, params);
  return {
    status: gate.status,
    ...(gate.status === 'OK' ? {} : { motivo: gate.motivo }),
    ...extractedFace(best, modelId),
    properties: facePropertiesOf(best.face, best.analysis, quality, params),
    uiTemplateMetadata,
  };
}
