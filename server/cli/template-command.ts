import { readFile } from 'node:fs/promises';
import { encodeTemplate, type TemplateKind } from '../../common/uitemplate/index.js';
import { STATION_VERSION } from '../version.js';

/** Writes a UITemplate built from image files to stdout, for integrators and tests without a camera. */
export async function runTemplate(kind: TemplateKind, files: string[]): Promise<void> {
  const frames = await Promise.all(
    files.map(async (file, index) => ({
      data: new Uint8Array(await readFile(file)),
      ...(kind === 'document' ? { side: index === 0 ? ('front' as const) : ('back' as const) } : {}),
    })),
  );
  const template = await encodeTemplate({
    kind,
    frames,
    device: {
      kind: 'file',
      software: `enrolla-cli ${STATION_VERSION}`,
      label: files
        .map((f) => f.split('/').pop())
        .join(',')
        .slice(0, 128),
    },
  });
  process.stdout.write(`${template}\n`);
}
