// The configuration's entry point: the settings' schema and where they are read from.
export { loadConfig } from './load.js';
export { configSchema, type StationConfig, type StationConfigInput } from './schema.js';
