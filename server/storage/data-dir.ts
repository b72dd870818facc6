/** Where a station keeps its search index's files, under its data directory: derived data, removed by a restore. */
export const SEARCH_INDEX_DIR = 'search-index';
