import { z } from 'zod';
import { SINGLE_FRAME_POLICIES } from '../../common/api/face-schemas.js';
import { CHANGE_RETENTION_DAYS } from '../storage/index.js';
import { RESIDENT_FLOATS_MIB } from '../search/index.js';

/**
 * Station settings; docs/configuration.md lists each with its environment variable. A section
 * left out is parsed from `{}` (`prefault`), so its defaults are its fields' own.
 */
export const configSchema = z.strictObject({
  dataDir: z.string().min(1),
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(8443),
  tls: z
    .strictObject({
      enabled: z.boolean().default(true),
      certFile: z.string().min(1).optional(),
      keyFile: z.string().min(1).optional(),
    })
    .refine((t) => (t.certFile === undefined) === (t.keyFile === undefined), {
      message: 'certFile y keyFile van juntos',
    })
    .prefault({}),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  auth: z
    .strictObject({
      /** Failed authentications from one address within the window before it gets 429. */
      maxFailures: z.number().int().min(1).max(1000).default(10),
      windowSeconds: z.number().int().min(1).max(86_400).default(60),
    })
    .prefault({}),
  /** Folder of model files (filled from npm packages at install); defaults to the package's models/. */
  modelsDir: z.string().min(1).optional(),
  engines: z
    .strictObject({
      face: z
        .strictObject({
          enabled: z.boolean().default(true),
          /** Worker threads; 0 means one per core. */
          workers: z.number().int().min(0).max(32).default(0),
          /** Requests waiting beyond the running ones before the station answers 503. */
          maxQueue: z.number().int().min(1).max(1000).default(32),
          /** Each worker analyses a sample face a few times before it takes requests. */
          warmUp: z.boolean().default(true),
          /**
           * Where the face networks (recognition, Human's, face-api's) run: onnxruntime's
           * native CPU kernels, tfjs's WASM backend, or native where its binary loads (same results).
           */
          networkRuntime: z.enum(['auto', 'native', 'wasm']).default('auto'),
          /** A request's recognition networks also run on an idle worker's core while it stays idle. */
          borrowIdleCores: z.boolean().default(true),
        })
        .prefault({}),
      document: z
        .strictObject({
          enabled: z.boolean().default(true),
          /** The worker reads a sample card before it takes requests. */
          warmUp: z.boolean().default(true),
        })
        .prefault({}),
    })
    .prefault({}),
  matching: z
    .strictObject({
      /** Default 1:1 decision: false-match rate per comparison (1e-3 is confidence 36, 1e-4 is 48). */
      verifyFmr: z.number().min(1e-8).max(0.1).default(1e-3),
      /** Identification and duplicate search: share of strangers accepted, over the whole gallery. */
      identifyFpir: z.number().min(1e-6).max(0.1).default(0.01),
      enrollMinQuality: z.number().min(0).max(100).default(35),
      enrollMinIod: z.number().min(8).max(1024).default(40),
      /**
       * Identification's probe gates: a probe under them is refused (LOW_QUALITY) rather than
       * searched, since at a 1:N threshold it is seldom found and its NOT_IDENTIFIED would mislead.
       */
      identifyMinQuality: z.number().min(0).max(100).default(35),
      identifyMinIod: z.number().min(0).max(1024).default(40),
      /** Attack confidence (0-100) from which a capture is declared a spoof. */
      spoofThreshold: z.number().min(0).max(100).default(50),
      /** One usable image: not certified as a live person ('refuse'), or decided on what it shows ('judge'). */
      spoofSingleFrame: z.enum(SINGLE_FRAME_POLICIES).default('refuse'),
    })
    .prefault({}),
  search: z
    .strictObject({
      /**
       * The 1:N index's float rows (re-ranking reads ~80 a search) are also kept in memory while
       * they take at most this many MiB; beyond, they are read from their sealed file. 0: always the file.
       */
      residentFloatsMB: z.number().int().min(0).max(65_536).default(RESIDENT_FLOATS_MIB),
      /**
       * The index's codes on 2 MiB pages where Linux's transparent huge pages allow it (searches
       * at a million persons take 13-16 % less); false: 4 KiB pages. docs/search-index.md.
       */
      hugePages: z.boolean().default(true),
    })
    .prefault({}),
  /**
   * Shared gallery of a fleet of stations (`postgres://user:pass@host:5432/db`); absent, the
   * gallery is the station's own SQLite file. docs/fleet-gallery.md.
   */
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { message: 'debe ser una URL postgres://usuario:clave@host:5432/base' })
    .optional(),
  /**
   * Days the shared gallery keeps its change feed's rows; a station away longer reloads its index
   * when it comes back. docs/fleet-gallery.md.
   */
  databaseChangeRetentionDays: z.number().int().min(1).max(3650).default(CHANGE_RETENTION_DAYS),
  /**
   * Copies of the station's database on a schedule, kept by their own age (docs/security.md,
   * "Backups"). Off by default: each copy is the database's size, and belongs on another disk.
   */
  backups: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** Absent: `<dataDir>/backups`. */
      dir: z.string().min(1).optional(),
      intervalHours: z
        .number()
        .min(1)
        .max(24 * 31)
        .default(24),
      keep: z.number().int().min(1).max(1000).default(7),
    })
    .prefault({}),
  /** Serve the operator console's built files at /. */
  serveConsole: z.boolean().default(true),
  requestTimeoutSeconds: z.number().int().min(1).max(600).default(60),
});

export type StationConfig = z.infer<typeof configSchema>;
export type StationConfigInput = z.input<typeof configSchema>;
