import { z } from 'zod';

/** Station settings; docs/configuration.md lists each with its environment variable. */
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
    .default({ enabled: true }),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  auth: z
    .strictObject({
      /** Failed authentications from one address within the window before it gets 429. */
      maxFailures: z.number().int().min(1).max(1000).default(10),
      windowSeconds: z.number().int().min(1).max(86_400).default(60),
    })
    .default({ maxFailures: 10, windowSeconds: 60 }),
  /** Serve the operator console's built files at /. */
  serveConsole: z.boolean().default(true),
  requestTimeoutSeconds: z.number().int().min(1).max(600).default(60),
});

export type StationConfig = z.infer<typeof configSchema>;
export type StationConfigInput = z.input<typeof configSchema>;
