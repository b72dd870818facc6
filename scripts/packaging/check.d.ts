export interface PackagingFacts {
  work: string;
  seconds?: number;
  asarEntries?: number;
  nativeModules?: string[];
  modelFiles?: number;
  /** Bytes of the unpacked app, and of it without the (stand-in) Electron runtime: resources/. */
  appBytes?: number;
  resourcesBytes?: number;
  fuses?: Record<string, string>;
}
export declare function standInElectron(dir: string, version: string): void;
export declare function checkPackaging(options?: { work?: string; log?: (text: string) => void }): Promise<{
  problems: string[];
  facts: PackagingFacts;
}>;
