/** Where a station keeps its search index's snapshots, under its data directory (derived data: removable). */
export const SEARCH_INDEX_DIR = 'search-index';
