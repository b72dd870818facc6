// The station's entry point: what starts it, for the CLI, the desktop shell and the benchmarks.
export { BOOTSTRAP_TOKEN_NAME, startStation, type RunningStation, type StationOptions } from './start-station.js';
