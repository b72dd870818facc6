import type { SideOptions, SideReading } from '../read-card-side.js';
import type { WarmUpReport } from '../../warm-up.js';

export type DocumentRequest =
  | { id: number; type: 'readSides'; images: Uint8Array[]; options: SideOptions[] }
  | { id: number; type: 'crash' };

export type DocumentResponse =
  | { id: number; ok: true; result: SideReading[] }
  | { id: number; ok: false; error: string; kind: 'image' | 'engine'; frameIndex?: number };

export type DocumentWorkerStatus = { type: 'ready'; warmUp: WarmUpReport } | { type: 'failed'; error: string };
