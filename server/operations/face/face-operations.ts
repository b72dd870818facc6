import type { z } from 'zod';
import {
  extractParametersSchema,
  type ExtractParameters,
  type extractFaceResponseSchema,
  type SingleFramePolicy,
} from '../../../common/api/face-schemas.js';
import type { DecodedTemplate } from '../../../common/uitemplate/index.js';
import { sniffImage } from '../../../common/uitemplate/index.js';
import { assessQuality } from '../../engines/face/analysis/quality.js';
import { MATCHING_ANALYSIS } from '../../engines/face/analyze-options.js';
import type { FaceEngine } from '../../engines/face/face-engine.js';
import type { AnalyzeOptions, FrameAnalysis } from '../../engines/face/types.js';
import { ApiError } from '../../http/api-error.js';
import type { OperationHandlers } from '../../http/operation-route.js';
import { engineError } from '../engine-errors.js';
import {
  confidenceOf,
  falseAcceptProbability,
  identificationThreshold,
  thresholdForFmr,
  type ImpostorModel,
} from '../../matching/calibration.js';
import { cosine } from '../../matching/similarity.js';
import type { SearchIndex } from '../../search/search-index.js';
import type { Gallery, ScreenInput } from '../../gallery/gallery.js';
import { encodeFaceTemplate } from './face-template.js';
import { extractGate, facePropertiesOf } from './face-properties.js';
import { identificationOnGallery, type IdentificationScoring } from './identification-scoring.js';
import { framesPassing, selectFrames, type UsableFrame } from './frame-selection.js';
import { assessPresentation, spoofDecision } from './presentation-attack.js';
import { judgedStillMotivo } from './still-judgement.js';
import { ResultCache } from '../result-cache.js';

export interface FaceMatchingPolicy {
  /** Impostor distribution of the stored embeddings' cosine: 1:1 decisions. */
  impostors: ImpostorModel;
  identification: IdentificationScoring;
  /** Default 1:1 threshold, as a false-match rate per comparison. */
  verifyFmr: number;
  /** Target share of strangers accepted by identification (and duplicate search). */
  identifyFpir: number;
  /** Lowest quality score a sample must have to be enrolled. */
  enrollMinQuality: number;
  /** Lowest IOD in pixels for an enrollment sample. */
  enrollMinIod: number;
  /** Default probe gates of identification (a request may lower or raise them). */
  identifyMinQuality: number;
  identifyMinIod: number;
  /** Attack confidence at or above which a capture is refused as a spoof. */
  spoofThreshold: number;
  /** Whether one usable image may be certified as a live person. */
  spoofSingleFrame: SingleFramePolicy;
}

const BASE = MATCHING_ANALYSIS;
const EXTRACT_DEFAULTS = extractParametersSchema.parse({});

type ExtractData = Omit<z.infer<typeof extractFaceResponseSchema>, 'txId' | 'exception'>;

interface EnrollRefusal {
  status: 'DUPLICATED_TEMPLATE' | 'DUPLICATED_SUBJECT_ID';
  idPersona: string;
  duplicatedIdPersona?: string;
  motivo: string;
}

/** The five face operations of the contract, on the engine, the gallery and the search index. */
export function faceOperations(deps: {
  engine: FaceEngine;
  gallery: Gallery;
  index: SearchIndex;
  policy: FaceMatchingPolicy;
}): OperationHandlers {
  const { engine, gallery, index, policy } = deps;
  const cache = new ResultCache<ExtractData>(64, 10 * 60_000);
  const verifyThreshold = thresholdForFmr(policy.verifyFmr);
  const scoreOn = (s: number, impostors: ImpostorModel) => ({
    score: Math.round(s * 10_000) / 10_000,
    confidence: confidenceOf(s, impostors),
    faP: Number(falseAcceptProbability(s, impostors).toPrecision(3)),
  });
  const score = (s: number) => scoreOn(s, policy.impostors);
  const { identification } = policy;
  const identifyThreshold = () =>
    Math.round(identificationThreshold(index.sampleCount, policy.identifyFpir, verifyThreshold) * 10) / 10;

  async function analyze(
    template: DecodedTemplate,
    options: AnalyzeOptions,
    frames = template.frames.length,
  ): Promise<FrameAnalysis[]> {
    try {
      return await engine.analyzeFrames(template.frames.slice(0, frames), options);
    } catch (error) {
      throw engineError(error);
    }
  }

  return {
    extractFace: async ({ request, templates }) => {
      const template = templates.template!;
      const params = request.parametros;
      return cache.remember(params.useCache, template.digest, params, async () => {
        const analyses = await analyze(template, extractOptions(params), params.videoFramesSeq);
        return extractResult(analyses, template, params, policy.impostors, engine.modelId);
      });
    },

    enroll: async ({ request, templates, log }) => {
      const { idPersona, parametros } = request;
      const template = templates.template!;
      const selection = selectFrames(await analyze(template, { ...BASE, thumbnailWidth: 128 }), {
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
          const threshold = parametros.duplicateThreshold ?? identifyThreshold();
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
          if (confidenceOf(best, policy.impostors) < verifyThreshold) {
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
      // Searchable as soon as it is durable: the gallery has put it in the index.
      if (!result.stored) return result.rejection;
      return { status: 'SUCCESS', idPersona, samples: result.samples, quality: chosen[0]!.quality.score };
    },

    verify: async ({ request, templates }) => {
      const { idPersona } = request;
      const threshold = request.parametros.threshold ?? verifyThreshold;
      if (!(await gallery.getPerson(idPersona))) return { status: 'INEXISTENT', idPersona, motivo: 'idPersona no está enrolado' };
      const samples = (await gallery.listSamples(idPersona)).filter((s) => s.modelId === engine.modelId);
      if (samples.length === 0)
        return {
          status: 'WITHOUT_TEMPLATE',
          idPersona,
          motivo: `la persona no tiene muestras del modelo ${engine.modelId}; vuelva a enrolarla`,
        };
      const selection = selectFrames(await analyze(templates.template!, BASE), { onlyMajor: true, impostors: policy.impostors });
      if (!selection.ok) return { status: selection.status, idPersona, motivo: selection.motivo };
      const best = Math.max(...samples.map((s) => cosine(s.embedding, selection.best.face.embedding!)));
      const s = score(best);
      return {
        status: s.confidence >= threshold ? 'CHECK_CONFIDENCE' : 'NOT_VERIFIED',
        idPersona,
        threshold: round1(threshold),
        ...s,
      };
    },

    identify: async ({ request, templates }) => {
      const { maxResults } = request.parametros;
      const threshold = request.parametros.threshold ?? identifyThreshold();
      if (index.personCount === 0) return { status: 'WITHOUT_TEMPLATE', candidates: [], motivo: 'la galería está vacía' };
      const selection = selectFrames(await analyze(templates.template!, BASE), { onlyMajor: true, impostors: policy.impostors });
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
        .map((hit) => ({ idPersona: hit.idPersona, ...scoreOn(hit.score - shift, gallery.impostors) }))
        .filter((c) => c.confidence >= threshold);
      // The best candidate also at the top, where the vendor's identify result carries it.
      const best = candidates[0];
      return {
        status: best ? 'IDENTIFY_OK' : 'NOT_IDENTIFIED',
        threshold: round1(threshold),
        ...(best ?? {}),
        candidates,
      };
    },

    spoof: async ({ request, templates }) => {
      const template = templates.template!;
      const extract = request.parametros.extractFace;
      const singleFrame = request.parametros.singleFrame ?? policy.spoofSingleFrame;
      // With extractFace, the face as extraction describes it at its default parameters; the
      // still cues only when a single image is to be judged.
      const judge = singleFrame === 'judge';
      const analyses = await analyze(
        template,
        extract
          ? { ...extractOptions(EXTRACT_DEFAULTS), presentation: true, stillCues: judge }
          : { ...BASE, presentation: true, stillCues: judge },
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
        photoAnalysis = await engine.analyzeImage(photo, BASE);
      } catch (error) {
        throw engineError(error, 'image');
      }
      const photoSelection = selectFrames([photoAnalysis], { onlyMajor: true, impostors: policy.impostors });
      if (!photoSelection.ok)
        return { ...data, status: 'IMAGE_WITHOUT_FACE' as const, motivo: `la foto de 'image': ${photoSelection.motivo}` };
      const s = score(cosine(photoSelection.best.face.embedding!, best.face.embedding!));
      return { ...data, samePerson: { match: s.confidence >= verifyThreshold, ...s } };
    },
  };
}

function extractOptions(params: ExtractParameters): AnalyzeOptions {
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

function extractedFace(frame: UsableFrame, modelId: string) {
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

function decodePhoto(text: string): Uint8Array {
  const clean = text.replace(/^data:image\/[a-z]+;base64,/, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(clean))
    throw new ApiError('BAD_REQUEST', "Solicitud inválida: campo 'image': no es base64 válido.");
  const bytes = new Uint8Array(Buffer.from(clean, clean.includes('-') || clean.includes('_') ? 'base64url' : 'base64'));
  const sniffed = sniffImage(bytes);
  if ('error' in sniffed) throw new ApiError('BAD_REQUEST', `Solicitud inválida: campo 'image': ${sniffed.error}.`);
  return bytes;
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

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const round1 = (x: number): number => Math.round(x * 10) / 10;
