import sharp from 'sharp';
import type { RescanSide, SuggestedAction } from '../../../common/api/document-schemas.js';
import type { DecodedTemplate } from '../../../common/uitemplate/index.js';
import {
  CANONICAL_WIDTH,
  DNI_2012_BACK_FINGERPRINT,
  type DocumentEngine,
  type Td1Result,
  type DniPayload,
  type UnrecognisedPayload,
  type SideReading,
  MATCHING_ANALYSIS,
  type FaceEngine,
  type AnalyzeOptions,
} from '../../engines/index.js';
import { ApiError } from '../../domain/index.js';
import type { OperationHandlers } from '../operation-handler.js';
import { engineError } from '../engine-errors.js';
import { confidenceOf, falseAcceptProbability, thresholdForFmr, cosine } from '../../matching/index.js';
import { selectFrames } from '../face/frame-selection.js';
import type { FaceMatchingPolicy } from '../face/face-context.js';
import { ResultCache } from '../result-cache.js';
import { documentInfoOf, mismatchedFields, mrzResultOf, pdf417ResultOf, sideOf } from './dni-result.js';

/** Under these a side is too blurred, or too glared, to trust: ask for a rescan instead of guessing. */
export const MIN_CARD_SHARPNESS = 2e-4;
export const MAX_CARD_GLARE = 0.12;
/** A frame this flat (a lens cap, an empty scanner) shows no card at all, blurred or not. */
const NOTHING_SHOWN = 1e-6;

const PORTRAIT: AnalyzeOptions = { ...MATCHING_ANALYSIS, portrait: true, majorPolicy: 'largest' };

interface Sides {
  front: SideReading | null;
  back: SideReading | null;
}

async function readSides(
  engine: DocumentEngine,
  template: DecodedTemplate,
  options: { pdf417: boolean; mrz: boolean; text: boolean },
): Promise<Sides> {
  let readings: SideReading[];
  try {
    readings = await engine.readSides(
      template.frames.map((f) => f.data),
      template.frames.map((f) => ({ ...options, declaredSide: f.side })),
    );
  } catch (error) {
    throw engineError(error);
  }
  const sides: Sides = { front: null, back: null };
  readings.forEach((r, i) => {
    const side = sideOf(r, template.frames[i]!.side, i);
    if (!sides[side]) sides[side] = r;
  });
  return sides;
}

/** What the operator should fix on a side from which nothing could be read. */
function whyUnreadable(side: SideReading): string {
  if (side.quality.sharpness < NOTHING_SHOWN) return 'no muestra ninguna tarjeta; colóquela dentro de la guía';
  if (side.quality.glare > MAX_CARD_GLARE) return 'tiene reflejos; inclínela apenas o aleje la luz';
  if (side.quality.sharpness < MIN_CARD_SHARPNESS) return 'está borrosa; sosténgala quieta y enfocada';
  if (side.card.method === 'frame') return 'no se encontraron los bordes de la tarjeta; póngala derecha dentro de la guía';
  return 'no tiene un código legible; acérquela a la cámara';
}

const blurredOrGlared = (s: SideReading | null) =>
  s !== null && (s.quality.sharpness < MIN_CARD_SHARPNESS || s.quality.glare > MAX_CARD_GLARE);

/** The DNI operations: reading a card, and matching its portrait with the person present. */
export function documentOperations(deps: {
  engine: DocumentEngine;
  face: FaceEngine | null;
  policy: FaceMatchingPolicy;
}): OperationHandlers {
  const { engine, face, policy } = deps;
  const cache = new ResultCache<Awaited<ReturnType<NonNullable<OperationHandlers['extractDni']>>>>(32, 10 * 60_000);

  async function portraitOf(front: SideReading | null) {
    if (!face || !front) return null;
    const analysis = await face.analyzeImage(front.rectifiedJpeg, PORTRAIT).catch((error: unknown) => {
      throw engineError(error);
    });
    return analysis.major;
  }

  return {
    extractDni: async ({ request, templates }) => {
      const template = templates.template!;
      const p = request.parametros;
      return cache.remember(p.useCache, template.digest, p, async () => {
        const { front, back } = await readSides(engine, template, { pdf417: p.extractPDF417, mrz: p.extractMRZ, text: true });
        const payloadSide = [front, back].find((s) => s?.pdf417);
        const payload = payloadSide?.pdf417?.payload ?? null;
        const mrz = (back ?? front)?.mrz?.parsed ?? null;
        const dniPayload = payload && payload.layout !== null ? payload : null;
        // Printed fields from both sides: the front's identity, the back's address (2012+) or both on a 2009 card's front.
        const printed = { ...back?.printed?.fields, ...front?.printed?.fields };
        const info = documentInfoOf(dniPayload, mrz, printed);
        const portrait = p.extractFace && front ? await portraitOf(front) : null;
        const quality = Object.fromEntries(
          Object.entries({ front, back })
            .filter(([, s]) => s)
            .map(([side, s]) => [
              side,
              {
                sharpness: Number(s!.quality.sharpness.toPrecision(3)),
                glare: Number(s!.quality.glare.toFixed(4)),
                cardFound: s!.card.method === 'edges',
              },
            ]),
        );
        const base = {
          documentInfo: {
            ...info,
            face: portrait?.portrait ? Buffer.from(portrait.portrait).toString('base64') : null,
            fingerPrint: back?.mrz ? await fingerprintOf(back) : null,
          },
          mrz: mrz ? mrzResultOf(mrz) : null,
          mrzDetected: mrz !== null,
          pdf417: payload ? pdf417ResultOf(payload, payloadSide!.pdf417!.decoder) : null,
          pdf417Detected: payload !== null,
          frontImage: front ? Buffer.from(front.rectifiedJpeg).toString('base64') : null,
          backImage: back ? Buffer.from(back.rectifiedJpeg).toString('base64') : null,
          captureQuality: quality,
          uiTemplateMetadata: { fechaCreacionTemplate: template.fechaCreacionTemplate },
        };
        return {
          ...base,
          ...decide({
            front,
            back,
            payload,
            mrz,
            info,
            portraitFound: portrait !== null,
            wantFace: p.extractFace && face !== null,
            wantMrz: p.extractMRZ,
          }),
        };
      });
    },

    matchDniFace: async ({ request, templates }) => {
      if (!face) throw new ApiError('NOT_IMPLEMENTED', 'El motor facial no está disponible en esta estación.');
      const { front } = await readSides(engine, templates.documentTemplate!, { pdf417: false, mrz: false, text: false });
      const portrait = await portraitOf(front);
      if (!portrait?.embedding)
        return { status: 'FRONT_FACE_NOT_FOUND', motivo: 'no se encontró la foto en el frente del documento' };
      let analyses;
      try {
        analyses = await face.analyzeFrames(templates.template!.frames, {
          ...PORTRAIT,
          portrait: false,
          majorPolicy: 'dominant',
        });
      } catch (error) {
        throw engineError(error);
      }
      const selection = selectFrames(analyses, { onlyMajor: true, impostors: policy.impostors });
      if (!selection.ok) return { status: selection.status, motivo: selection.motivo };
      const threshold = request.parametros.threshold ?? thresholdForFmr(policy.verifyFmr);
      const s = cosine(portrait.embedding, selection.best.face.embedding!);
      const confidence = confidenceOf(s, policy.impostors);
      return {
        status: confidence >= threshold ? 'CHECK_CONFIDENCE' : 'NOT_VERIFIED',
        threshold: Math.round(threshold * 10) / 10,
        score: Math.round(s * 10_000) / 10_000,
        confidence,
        faP: Number(falseAcceptProbability(s, policy.impostors).toPrecision(3)),
      };
    },
  };
}

type Decision = {
  status: 'OK' | 'SPOOF' | 'EXCEPTION' | 'FRONT_FACE_NOT_FOUND' | 'NEITHER_MRZ_NOR_PDF417_DETECTED' | 'NOT_ARGENTINA_ID';
  suggestedAction: SuggestedAction;
  /** With RESCAN: which side to capture again. */
  rescanSide: RescanSide | null;
  motivo?: string;
};

/** The vendor's RESCAN, naming the side in its own field. */
const rescan = (side: RescanSide) => ({ suggestedAction: 'RESCAN', rescanSide: side }) as const;
const NO_RESCAN = { rescanSide: null } as const;

/** The outcome and exactly what the operator should do next. */
function decide(r: {
  front: SideReading | null;
  back: SideReading | null;
  payload: DniPayload | UnrecognisedPayload | null;
  mrz: Td1Result | null;
  info: ReturnType<typeof documentInfoOf>;
  portraitFound: boolean;
  wantFace: boolean;
  wantMrz: boolean;
}): Decision {
  const { front, back, payload, mrz, info } = r;
  const rescanOf = (side: 'front' | 'back') => rescan(side === 'front' ? 'FRONT' : 'BACK');
  if (!payload && !mrz) {
    const given = (['front', 'back'] as const).filter((side) => r[side]);
    const reasons = given.map((side) => `${side === 'front' ? 'el frente' : 'el dorso'}: ${whyUnreadable(r[side]!)}`);
    if (!back) reasons.push('falta el dorso: captúrelo también');
    return {
      status: 'NEITHER_MRZ_NOR_PDF417_DETECTED',
      ...(given.length === 2 ? rescan('BOTH') : !back ? rescan('BACK') : rescanOf(given[0]!)),
      motivo: `no se leyó ni el código PDF417 ni la MRZ (${reasons.join('; ')})`,
    };
  }
  if (payload && payload.layout === null && !mrz) {
    return {
      status: 'NOT_ARGENTINA_ID',
      suggestedAction: 'NONE',
      ...NO_RESCAN,
      motivo: 'el código PDF417 no tiene el formato del DNI argentino',
    };
  }
  if (mrz && mrz.issuingState !== 'ARG' && mrz.problems.length === 0 && mrz.valid) {
    return {
      status: 'NOT_ARGENTINA_ID',
      suggestedAction: 'NONE',
      ...NO_RESCAN,
      motivo: `documento emitido por ${mrz.issuingState}`,
    };
  }
  const mismatched = mismatchedFields(info);
  if (mismatched.length) {
    // The vendor's status for a document whose sources disagree: an edited front, a front and a
    // back of different cards. Nothing of it is vouched for.
    return {
      status: 'SPOOF',
      suggestedAction: 'NONE',
      ...NO_RESCAN,
      motivo: `el documento no es coherente: el texto impreso, el PDF417 y la MRZ no coinciden en ${mismatched.join(', ')}; revíselo a mano`,
    };
  }
  const key = ['documentNumber', 'surname', 'givenNames', 'dateOfBirth'] as const;
  const invalid = key.filter((k) => !info.fields[k]?.valid);
  if (invalid.length) {
    const side = mrz && !mrz.valid ? 'back' : 'front';
    return {
      status: 'EXCEPTION',
      ...(blurredOrGlared(r[side]) ? rescanOf(side) : { suggestedAction: 'RETRY', ...NO_RESCAN }),
      motivo: `no se pudo validar ${invalid.join(', ')}${
        mrz && !mrz.valid
          ? ` (MRZ: ${mrz.problems
              .concat(
                Object.entries(mrz.checks)
                  .filter(([, c]) => !c.valid)
                  .map(([n]) => `dígito de ${n}`),
              )
              .join('; ')})`
          : ''
      }`,
    };
  }
  if (r.wantFace && front && !r.portraitFound && info.documentVersion === 'ARGENTINA_ID_V2') {
    return { status: 'FRONT_FACE_NOT_FOUND', ...rescan('FRONT'), motivo: 'no se encontró la foto en el frente' };
  }
  if (back && !mrz && r.wantMrz && info.documentVersion === 'ARGENTINA_ID_V2') {
    return {
      status: 'OK',
      ...rescan('BACK'),
      motivo: `los datos salen solo del código del frente; el dorso no se pudo leer (${whyUnreadable(back)})`,
    };
  }
  return { status: 'OK', suggestedAction: 'NONE', ...NO_RESCAN };
}

/** The fingerprint box of a 2012+ back, cut from the rectified card (JPEG, base64). */
async function fingerprintOf(back: SideReading): Promise<string> {
  const pxPerMm = CANONICAL_WIDTH / 85.6;
  const b = DNI_2012_BACK_FINGERPRINT;
  const crop = await sharp(back.rectifiedJpeg)
    .extract({
      left: Math.round(b.x * pxPerMm),
      top: Math.round(b.y * pxPerMm),
      width: Math.round(b.width * pxPerMm),
      height: Math.round(b.height * pxPerMm),
    })
    .jpeg({ quality: 90 })
    .toBuffer();
  return crop.toString('base64');
}
