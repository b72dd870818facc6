import type { StationConfig } from '../config/index.js';
import { FACE_MODEL_ID, IDENTIFICATION_DIM } from '../engines/index.js';
import { type GalleryIndex, openGalleryIndex } from '../gallery-index/index.js';
import type { Logger } from '../log/index.js';
import { searchIndexKey } from '../search/index.js';
import type { Gallery } from '../storage/index.js';

/**
 * The 1:N index over the gallery's faces: from its snapshot when it matches the gallery, then
 * following the gallery's feed (docs/search-index.md, docs/fleet-gallery.md). Its files hold
 * derived templates: sealed under a key of their own from the data key.
 */
export function openStationIndex(
  config: StationConfig,
  gallery: Gallery,
  dataKey: Buffer,
  logger: Logger,
): Promise<GalleryIndex> {
  return openGalleryIndex(gallery, config.dataDir, {
    dim: IDENTIFICATION_DIM,
    leadingPart: true,
    modelId: FACE_MODEL_ID,
    logger,
    sealKey: searchIndexKey(dataKey),
    residentFloatBytes: config.search.residentFloatsMB * 2 ** 20,
    hugePages: config.search.hugePages,
  });
}
