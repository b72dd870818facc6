/**
 * CelebA has no sunglasses label (its Eyeglasses marks clear and dark lenses alike). These are the
 * photos of the two CelebA sets in ../shared labelled Eyeglasses in which the eyes are hidden behind
 * dark, tinted or mirrored lenses or swimming goggles: 21 of the 49, labelled by hand for this
 * project by looking at each photo (2026-11-24). File names only: no CelebA data is copied. The
 * other 28 show eyes through clear lenses (two show no glasses at all: CelebA's label noise).
 * Photos not labelled Eyeglasses were not reviewed.
 */
export const DARK_GLASSES_FILES: ReadonlySet<string> = new Set([
  '003425.jpg',
  '011848.jpg',
  '014253.jpg',
  '020449.jpg',
  '021218.jpg',
  '024586.jpg',
  '025473.jpg',
  '032591.jpg',
  '035829.jpg',
  '037332.jpg',
  '044296.jpg',
  '046415.jpg',
  '064402.jpg',
  '068436.jpg',
  '090485.jpg',
  '182673.jpg',
  '183327.jpg',
  '183492.jpg',
  '184149.jpg',
  '185356.jpg',
  '186804.jpg',
]);
