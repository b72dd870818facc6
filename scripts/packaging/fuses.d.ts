export declare const SENTINEL: Buffer;
export declare const FUSE_ORDER: readonly string[];
export declare const ENROLLA_FUSES: Record<string, boolean>;
export declare function readFuses(binary: string): Promise<Record<string, 'enabled' | 'disabled' | 'removed' | 'unknown'>>;
export declare function flipFuses(binary: string, fuses: Record<string, boolean>): Promise<number>;
