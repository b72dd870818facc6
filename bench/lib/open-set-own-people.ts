import { identificationThreshold, thresholdForFmr, type ImpostorModel } from '../../server/matching/calibration.js';
import { allPairs, verificationMetrics, type ScoredPair } from './metrics.js';
import { openSetAtScale, scoreForConfidence, type OpenSetAtScale } from './open-set-scale.js';

export interface Photo {
  identity: string;
  embedding: Float32Array;
}

export interface OwnPeopleOpenSet extends OpenSetAtScale {
  /** Photos enrolled per person (at most; persons with fewer photos enroll what they have but one). */
  enrolled_photos: number;
  /** Which half of the people the threshold was calibrated on (the other half is measured). */
  fold: number;
}

/**
 * Open-set identification as a customer who follows docs/face-engine.md gets it: the threshold
 * recalibrated on their own people (`--write-calibration`), then applied to other people. The
 * people are split in two halves by identity; the impostor tail of one half sets the threshold,
 * the other half is measured, and the halves swap. Each measured person enrolls up to `photos` of
 * their photos and is probed with each remaining one; a person scores as the best of their
 * samples (the station's rule), and the threshold is the station's for N people x that many
 * samples (1 % of strangers). Extrapolated to N as in open-set-scale.ts, from the measured
 * half's per-person scores.
 */
export function openSetOwnPeople(
  photos: readonly Photo[],
  score: (a: Float32Array, b: Float32Array) => number,
  enrolledPhotos: number,
  galleries: readonly number[],
): OwnPeopleOpenSet[] {
  const identities = [...new Set(photos.map((p) => p.identity))].sort();
  const out: OwnPeopleOpenSet[] = [];
  for (const fold of [0, 1]) {
    const calibrate = new Set(identities.filter((_, i) => i % 2 === fold));
    const calibration = fitTail(
      allPairs(
        photos.filter((p) => calibrate.has(p.identity)),
        (a, b) => score(a.embedding, b.embedding),
      ),
    );
    const measured = photos.filter((p) => !calibrate.has(p.identity));
    const byPerson = new Map<string, Photo[]>();
    for (const p of measured) {
      const own = byPerson.get(p.identity);
      if (own) own.push(p);
      else byPerson.set(p.identity, [p]);
    }
    const genuine: number[] = [];
    for (const own of byPerson.values()) {
      if (own.length < 2) continue;
      for (const probe of own) {
        const enrolled = own.filter((p) => p !== probe).slice(0, enrolledPhotos);
        genuine.push(Math.max(...enrolled.map((e) => score(probe.embedding, e.embedding))));
      }
    }
    // A stranger's photo against another person's enrolled samples (their first `enrolledPhotos`).
    const impostor: number[] = [];
    for (const probe of measured) {
      for (const [id, own] of byPerson) {
        if (id === probe.identity) continue;
        impostor.push(Math.max(...own.slice(0, enrolledPhotos).map((e) => score(probe.embedding, e.embedding))));
      }
    }
    const tail = fitTail([
      ...genuine.map((s) => ({ score: s, genuine: true })),
      ...impostor.map((s) => ({ score: s, genuine: false })),
    ]);
    for (const n of galleries) {
      const confidence = identificationThreshold(n * enrolledPhotos, 0.01, thresholdForFmr(1e-3));
      out.push({
        enrolled_photos: enrolledPhotos,
        fold,
        ...openSetAtScale(genuine, impostor, tail, n, scoreForConfidence(confidence, calibration)),
      });
    }
  }
  return out;
}

function fitTail(pairs: readonly ScoredPair[]): ImpostorModel {
  const m = verificationMetrics(pairs);
  return { mean: m.tailMean, std: m.tailStd, source: 'own people' };
}
