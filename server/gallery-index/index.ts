// The gallery index's entry point: the station's 1:N index kept in step with its gallery.
export { type GalleryIndex, type GalleryIndexOptions, keepInStep, openGalleryIndex } from './index-sync.js';
