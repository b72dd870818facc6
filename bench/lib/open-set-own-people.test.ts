import { describe, expect, it } from 'vitest';
import { cosine } from '../../server/matching/index.js';
import { seededRandom } from '../../test/random.js';
import { openSetOwnPeople, openSetOwnPeopleHalvings, type Photo } from './open-set-own-people.js';

/**
 * 60 people with 4 photos each in 32 dimensions: a person is a random direction, a photo that
 * direction plus noise of the given size (large noise: photos of one person barely agree), each
 * person's first photo with `firstPhotoNoise` instead.
 */
function people(noise: number, seed: number, firstPhotoNoise = noise): Photo[] {
  const rnd = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, rnd()))) * Math.cos(2 * Math.PI * rnd());
  const photos: Photo[] = [];
  for (let p = 0; p < 60; p++) {
    const identity = Array.from({ length: 32 }, gauss);
    for (let k = 0; k < 4; k++) {
      const size = k === 0 ? firstPhotoNoise : noise;
      photos.push({ identity: `p${p}`, embedding: Float32Array.from(identity, (x) => x + size * gauss()) });
    }
  }
  return photos;
}

/** One photo enrolled per person, a gallery of 1,000: the two halves' rows. */
const oneEnrolledAt1000 = (photos: Photo[]) => openSetOwnPeople(photos, cosine, 1, [1_000]);

describe('open-set identification recalibrated on the people themselves', () => {
  it('reports each gallery size for both halves of the people', () => {
    const rows = openSetOwnPeople(people(0.5, 1), cosine, 1, [100, 1_000]);
    expect(rows.map((r) => [r.fold, r.gallery])).toEqual([
      [0, 100],
      [0, 1_000],
      [1, 100],
      [1, 1_000],
    ]);
  });

  it('finds more enrolled people with more photos enrolled, at about the promised share of strangers', () => {
    const photos = people(0.5, 2);
    const one = openSetOwnPeople(photos, cosine, 1, [1_000]);
    const three = openSetOwnPeople(photos, cosine, 3, [1_000]);
    for (const fold of [0, 1]) {
      expect(three[fold]!.known_found).toBeGreaterThan(one[fold]!.known_found);
      expect(three[fold]!.strangers_accepted).toBeLessThan(0.05);
    }
  });

  it('finds almost nobody when photos of one person do not agree', () => {
    const rows = openSetOwnPeople(people(1.2, 3), cosine, 3, [1_000]);
    for (const r of rows) expect(r.known_found).toBeLessThan(0.2);
  });

  it('scores a person as one template, the mean of their photos, when asked to', () => {
    // Photos that scatter independently around the person: their mean is nearer the person than any photo.
    const photos = people(0.8, 4);
    const best = openSetOwnPeople(photos, cosine, 3, [1_000]);
    const template = openSetOwnPeople(photos, cosine, 3, [1_000], 'mean-template');
    for (const fold of [0, 1]) {
      expect(best[fold]!.scoring).toBe('best-sample');
      expect(template[fold]!.scoring).toBe('mean-template');
      expect(template[fold]!.known_found).toBeGreaterThan(best[fold]!.known_found + 0.05);
      expect(template[fold]!.strangers_accepted).toBeLessThan(0.05);
    }
  });

  it('finds more people at the exact threshold than at the calibrated one exactly when the calibration was stricter', () => {
    const rows = [1, 2, 3, 4].flatMap((seed) => openSetOwnPeople(people(0.6, 10 + seed), cosine, 3, [100, 1_000]));
    for (const r of rows) {
      // The calibrated threshold let more strangers through than the nominal 1 % only if it was lower.
      if (r.strangers_accepted > 0.0101) expect(r.known_found).toBeGreaterThanOrEqual(r.known_found_at_nominal);
      if (r.strangers_accepted < 0.0099) expect(r.known_found).toBeLessThanOrEqual(r.known_found_at_nominal);
    }
    // Both directions occur among these draws, so each comparison above was made.
    expect(rows.some((r) => r.strangers_accepted > 0.0101)).toBe(true);
    expect(rows.some((r) => r.strangers_accepted < 0.0099)).toBe(true);
  });

  it('measures many random halvings of the people, the same ones for the same seed', () => {
    const photos = people(0.6, 20);
    const a = openSetOwnPeopleHalvings(photos, cosine, 3, [100, 1_000], { halvings: 12, seed: 7 });
    const b = openSetOwnPeopleHalvings(photos, cosine, 3, [100, 1_000], { halvings: 12, seed: 7 });
    const c = openSetOwnPeopleHalvings(photos, cosine, 3, [100, 1_000], { halvings: 12, seed: 8 });
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
    expect(a.map((r) => [r.gallery, r.halvings])).toEqual([
      [100, 12],
      [1_000, 12],
    ]);
    for (const r of a) {
      for (const s of [r.strangers_accepted, r.known_found, r.known_found_at_nominal]) {
        expect(s.p10).toBeLessThanOrEqual(s.median);
        expect(s.median).toBeLessThanOrEqual(s.p90);
      }
      // Halvings differ in who calibrates, so the stranger share spreads.
      expect(r.strangers_accepted.p90).toBeGreaterThan(r.strangers_accepted.p10);
      // Synthetic people's scores are what the calibration assumes: the median halving is about nominal.
      expect(r.strangers_accepted.median).toBeGreaterThan(0.003);
      expect(r.strangers_accepted.median).toBeLessThan(0.03);
    }
  });

  it('enrolls only the photos enrollment would take, and still probes with the others', () => {
    // Each person's first photo is a poor capture (much noisier), which enrollment refuses.
    const photos = people(0.5, 40, 2);
    const gated = photos.map((p, i) => ({ ...p, enrollable: i % 4 !== 0 }));
    const everything = oneEnrolledAt1000(photos);
    const asEnrolled = oneEnrolledAt1000(gated);
    const allEnrollable = oneEnrolledAt1000(photos.map((p) => ({ ...p, enrollable: true })));
    expect(allEnrollable).toEqual(everything);
    for (const fold of [0, 1]) {
      // Enrolling the poor first photo, the others are matched against it; refused, against a good one.
      expect(asEnrolled[fold]!.known_found_at_nominal).toBeGreaterThan(everything[fold]!.known_found_at_nominal + 0.2);
      expect(asEnrolled[fold]!.strangers_accepted).toBeLessThan(0.05);
    }
  });

  it('searches only with the probes identification accepts: a refused one is neither found nor a stranger', () => {
    // Each person's first photo is a poor capture, refused both as a sample and as a probe.
    const photos = people(0.5, 41, 2).map((p, i) => ({ ...p, enrollable: i % 4 !== 0 }));
    const asEnrolled = oneEnrolledAt1000(photos);
    const asIdentified = oneEnrolledAt1000(photos.map((p) => ({ ...p, probes: p.enrollable })));
    const allProbing = oneEnrolledAt1000(photos.map((p) => ({ ...p, probes: true })));
    expect(allProbing).toEqual(asEnrolled);
    for (const fold of [0, 1]) {
      // The poor photo, searched with, is seldom found: refused, it no longer counts as missed.
      expect(asIdentified[fold]!.known_found_at_nominal).toBeGreaterThan(asEnrolled[fold]!.known_found_at_nominal + 0.1);
      expect(asIdentified[fold]!.strangers_accepted).toBeLessThan(0.05);
    }
  });

  it("takes part of each probe's similarity to its population's mean off its scores when asked to", () => {
    // People who share a common look in varying degree: a photo's impostor scores rise with how
    // much of it a photo carries, which the centring takes off probe by probe.
    const rnd = seededRandom(30);
    const gauss = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, rnd()))) * Math.cos(2 * Math.PI * rnd());
    const common = Array.from({ length: 32 }, gauss);
    const photos: Photo[] = [];
    for (let p = 0; p < 60; p++) {
      const identity = Array.from({ length: 32 }, gauss);
      for (let k = 0; k < 4; k++) {
        const share = 0.8 * rnd();
        photos.push({
          identity: `p${p}`,
          embedding: Float32Array.from(identity, (x, i) => x + share * common[i]! + 0.5 * gauss()),
        });
      }
    }
    const plain = openSetOwnPeopleHalvings(photos, cosine, 3, [1_000], { halvings: 20 })[0]!;
    const centred = openSetOwnPeopleHalvings(photos, cosine, 3, [1_000], { halvings: 20, centring: 0.5 })[0]!;
    expect(plain.centring).toBe(0);
    expect(centred.centring).toBe(0.5);
    expect(centred.known_found_at_nominal.median).toBeGreaterThan(plain.known_found_at_nominal.median + 0.02);
  });
});
