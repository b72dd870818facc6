import type { AttributeCues, Box, Point } from '../types.js';
import { centroid, distance } from './geometry.js';
import { chromaMean, darkLineDepth, gradientEnergy, hairShare, regionStats, type Plane } from '../../../imaging/index.js';

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

function patch(center: Point, w: number, h: number): Box {
  return { x: center[0] - w / 2, y: center[1] - h / 2, width: w, height: h };
}

/** The face's scale and its skin, from the cheeks, that each cue is measured against. */
interface SkinReference {
  /** Eye-centre distance, px. */
  d: number;
  cheekLuma: number;
  cheekGrad: number;
  cb: number;
  cr: number;
  red: number;
}

function skinReference(luma: Plane, rgb: Uint8Array, lm: readonly Point[]): SkinReference {
  const d = Math.max(1, distance(centroid(lm.slice(36, 42)), centroid(lm.slice(42, 48))));
  const s = d * 0.28;
  const cheeks = [patch(centroid([lm[3]!, lm[31]!, lm[41]!]), s, s), patch(centroid([lm[13]!, lm[35]!, lm[46]!]), s, s)];
  const stats = cheeks.map((b) => regionStats(luma, b));
  const grad = cheeks.map((b) => gradientEnergy(luma, b)).reduce((a, g) => a + g.horizontal + g.vertical, 0) / 4;
  const chroma = cheeks.map((b) => chromaMean(rgb, luma.width, luma.height, b));
  return {
    d,
    cheekLuma: Math.max(0.02, (stats[0]!.mean + stats[1]!.mean) / 2),
    cheekGrad: grad + 0.004,
    cb: (chroma[0]!.cb + chroma[1]!.cb) / 2,
    cr: (chroma[0]!.cr + chroma[1]!.cr) / 2,
    red: (chroma[0]!.red + chroma[1]!.red) / 2,
  };
}

/**
 * How much a band over the forehead looks like hair (a fringe) rather than headwear, 0..1, from
 * what hair is: its colours lie between the neutral greys (black, grey, white hair) and the skin's
 * own hue made richer (brown, blond, auburn), where a cap's need not; and its strands hang down
 * the forehead, so across the band the brightness changes more than down it, where a hat's fabric
 * is smooth and its brim's edge runs across. A hat of hair's colour and texture is missed.
 */
function hairLikeness(luma: Plane, band: Box, chroma: { cb: number; cr: number }, skin: SkinReference): number {
  // Chroma's distance from the segment (0, 0) - 1.5 x the skin's (Cb, Cr); 0.04 is a clear change
  // of colour (the skin cue counts one from 0.05), so hair's colour fades out over it.
  const [ex, ey] = [1.5 * skin.cb, 1.5 * skin.cr];
  const t = Math.min(1, Math.max(0, (chroma.cb * ex + chroma.cr * ey) / Math.max(1e-9, ex * ex + ey * ey)));
  const offHair = Math.hypot(chroma.cb - t * ex, chroma.cr - t * ey);
  const hairColour = Math.max(0, 1 - offHair / 0.04);
  // Strands: the share of the band's gradient across it; 0.5 is no direction, hair's from about 0.55.
  const g = gradientEnergy(luma, band);
  const across = g.horizontal / Math.max(1e-9, g.horizontal + g.vertical);
  return hairColour * sigmoid((across - 0.55) * 20);
}

/** Spectacles and dark lenses, from the eye regions. */
function spectacleCues(luma: Plane, lm: readonly Point[], skin: SkinReference): { glasses: number; darkGlasses: number } {
  const { d, cheekLuma, cheekGrad } = skin;
  const rightEye = centroid(lm.slice(36, 42));
  const leftEye = centroid(lm.slice(42, 48));
  // A frame's bar across the nose bridge makes horizontal edges that skin does not,
  // and its rims thin dark lines below both eyes (in the frame of the eye line, so a rolled head
  // keeps them rows). Line depths are relative to the cheek; a rim must show under both eyes.
  const bridge = { x: lm[39]![0], y: lm[27]![1] - 0.12 * d, width: Math.max(2, lm[42]![0] - lm[39]![0]), height: 0.24 * d };
  const bridgeEdges = gradientEnergy(luma, bridge).vertical;
  const roll = Math.atan2(leftEye[1] - rightEye[1], leftEye[0] - rightEye[0]);
  const thin = Math.max(1, 0.035 * d);
  const rimBelow = (eye: Point, half: number) =>
    darkLineDepth(luma, eye, roll, { a0: -half, a1: half, b0: 0.15 * d, b1: 0.6 * d }, thin) / cheekLuma;
  const halfWidth = (a: Point, b: Point) => Math.max(2, 0.5 * distance(a, b));
  const rim = Math.min(rimBelow(rightEye, halfWidth(lm[36]!, lm[39]!)), rimBelow(leftEye, halfWidth(lm[42]!, lm[45]!)));
  // The bridge bar as a dark line across the middle of the gap between the inner eye corners.
  const gapMiddle = centroid([lm[39]!, lm[42]!]);
  const bar =
    darkLineDepth(
      luma,
      gapMiddle,
      roll,
      { a0: -0.25 * distance(lm[39]!, lm[42]!), a1: 0.25 * distance(lm[39]!, lm[42]!), b0: -0.35 * d, b1: 0.2 * d },
      thin,
    ) / cheekLuma;
  const glassesCue = sigmoid((bridgeEdges / cheekGrad - 1.6) * 1.5 + (rim - 0.06) * 40 + (bar - 0.06) * 40);

  // Dark lenses: the eye regions far darker than the cheeks, where a frame is seen. Darkness
  // alone also fires on eyes shaded by a brow, a cap's brim or a squint into the sun.
  const eyes = [lm.slice(36, 42), lm.slice(42, 48)].map((pts) => patch(centroid(pts), 0.55 * d, 0.32 * d));
  const eyeLuma = eyes.map((b) => regionStats(luma, b).mean).reduce((a, v) => a + v, 0) / 2;
  const darkCue = sigmoid((0.55 - eyeLuma / cheekLuma) * 12) * Math.sqrt(glassesCue);

  return { glasses: glassesCue, darkGlasses: darkCue };
}

/**
 * Attribute cues from image regions placed by landmarks in the iBUG 68-point scheme, each
 * relative to the person's own cheek skin so that lighting and skin tone cancel out. Constants
 * are set by reasoning about the regions, not fitted to any data set; `npm run eval:attributes`
 * measures them.
 *
 * Spectacles are read at face-api's points (`faceApi68`). The mouth, chin and forehead cues at
 * the mesh's (`mesh68`, when the mesh ran): face-api's points are placed in Human's detector box,
 * about 1.5 times the face, and where they slip (a man speaking, his brows put on his hair and his
 * chin on the collar) so do those regions; the mesh is fitted to the face itself
 * (docs/face-engine.md, "Where the trait regions are placed").
 */
export function attributeCues(
  luma: Plane,
  rgb: Uint8Array,
  faceApi68: readonly Point[],
  mesh68: readonly Point[] | null,
): AttributeCues {
  const { width, height } = luma;
  const faceApiSkin = skinReference(luma, rgb, faceApi68);
  const { glasses: glassesCue, darkGlasses: darkCue } = spectacleCues(luma, faceApi68, faceApiSkin);
  const lm = mesh68 ?? faceApi68;
  const skin = mesh68 ? skinReference(luma, rgb, mesh68) : faceApiSkin;
  const { d, cheekLuma, cheekGrad, cb: skinCb, cr: skinCr, red: skinRed } = skin;

  // Moustache: between the nose base and the upper lip, darker than the cheeks.
  const lipTop = lm[51]![1];
  const noseBase = lm[33]![1];
  const moustache = {
    x: lm[48]![0],
    y: noseBase + 0.15 * (lipTop - noseBase),
    width: Math.max(2, lm[54]![0] - lm[48]![0]),
    height: Math.max(2, 0.7 * (lipTop - noseBase)),
  };
  const moustacheLuma = regionStats(luma, moustache).mean;
  // The skin reference for hair: the cheeks (a full beard can reach them, which only makes the
  // cues below more cautious).
  const skinRef = { luma: cheekLuma, cr: skinCr, red: skinRed };
  const moustacheHair = hairShare(luma, rgb, moustache, skinRef);
  const moustacheCue = sigmoid(((cheekLuma - moustacheLuma) / cheekLuma - 0.2) * 5 + (moustacheHair - 0.3) * 6);

  // Beard: the chin and the jaw below the mouth, darker and more textured than the cheeks.
  const chinTop = lm[57]![1] + 0.08 * d;
  const chin = {
    x: lm[6]![0],
    y: chinTop,
    width: Math.max(2, lm[10]![0] - lm[6]![0]),
    height: Math.max(2, lm[8]![1] - chinTop - 0.05 * d),
  };
  const chinStats = regionStats(luma, chin);
  const chinGrad = gradientEnergy(luma, chin);
  const chinTexture = (chinGrad.horizontal + chinGrad.vertical) / 2 / cheekGrad;
  // Beyond the chin, the jaw on both sides below the mouth corners: a beard covers it, a shadow
  // under the chin does not.
  const jaw = [
    { x: lm[5]![0], y: lm[48]![1], width: Math.max(2, lm[48]![0] - lm[5]![0]), height: Math.max(2, lm[6]![1] - lm[48]![1]) },
    { x: lm[54]![0], y: lm[54]![1], width: Math.max(2, lm[11]![0] - lm[54]![0]), height: Math.max(2, lm[10]![1] - lm[54]![1]) },
  ];
  const beardHair = Math.min(
    hairShare(luma, rgb, chin, skinRef),
    (hairShare(luma, rgb, jaw[0]!, skinRef) + hairShare(luma, rgb, jaw[1]!, skinRef)) / 2,
  );
  const beardCue = sigmoid(
    ((cheekLuma - chinStats.mean) / cheekLuma - 0.15) * 4 + (chinTexture - 1.5) * 0.8 + (beardHair - 0.3) * 6,
  );

  // Hat: the band above the brows is not skin (its colour or its brightness departs from the
  // cheeks'), and it is not hair either.
  const browTop = Math.min(...lm.slice(17, 27).map((p) => p[1]));
  const band = { x: lm[19]![0], y: browTop - 0.75 * d, width: Math.max(2, lm[24]![0] - lm[19]![0]), height: 0.4 * d };
  const bandChroma = chromaMean(rgb, width, height, band);
  const chromaShift = Math.hypot(bandChroma.cb - skinCb, bandChroma.cr - skinCr);
  const bandLuma = regionStats(luma, band).mean;
  const notSkin = sigmoid((chromaShift - 0.05) * 40 + (Math.abs(bandLuma - cheekLuma) / cheekLuma - 0.45) * 3);
  const hatCue = notSkin * (1 - hairLikeness(luma, band, bandChroma, skin));

  return { glasses: glassesCue, darkGlasses: darkCue, beard: beardCue, mustache: moustacheCue, hat: hatCue };
}
