import type { StationConfig } from '../config/index.js';
import { CENTRING_SHARE } from '../matching/index.js';
import {
  defaultModelsDir,
  DocumentEngine,
  FaceEngine,
  IDENTIFICATION_CENTRED_IMPOSTOR_MODEL,
  IDENTIFICATION_IMPOSTOR_MODEL,
  identificationView,
  IMPOSTOR_MODEL,
} from '../engines/index.js';
import type { Logger } from '../log/index.js';
import type { FaceMatchingPolicy } from '../operations/index.js';

export interface StationEngines {
  faceEngine: FaceEngine | null;
  documentEngine: DocumentEngine | null;
  modelsDir: string;
}

/** The engines the configuration turns on, started: their workers load their models meanwhile. */
export function startEngines(config: StationConfig, logger: Logger): StationEngines {
  const faceConfig = config.engines.face;
  const modelsDir = config.modelsDir ?? defaultModelsDir();
  const faceEngine = faceConfig.enabled
    ? FaceEngine.start({
        modelsDir,
        ...(faceConfig.workers > 0 ? { workers: faceConfig.workers } : {}),
        maxQueue: faceConfig.maxQueue,
        warmUp: faceConfig.warmUp,
        networkRuntime: faceConfig.networkRuntime,
        borrowIdleCores: faceConfig.borrowIdleCores,
        onEvent: (event, detail) => logger.info({ event, detail }, 'motor facial'),
      })
    : null;
  const documentEngine = config.engines.document.enabled
    ? DocumentEngine.start({
        modelsDir,
        warmUp: config.engines.document.warmUp,
        onEvent: (event, detail) => logger.info({ event, detail }, 'motor de documentos'),
      })
    : null;
  return { faceEngine, documentEngine, modelsDir };
}

/** How face scores are decided: the engine's calibration, and the thresholds and gates configured. */
export function matchingPolicy(config: StationConfig): FaceMatchingPolicy {
  return {
    impostors: IMPOSTOR_MODEL,
    identification: {
      view: identificationView,
      centring: CENTRING_SHARE,
      impostors: IDENTIFICATION_IMPOSTOR_MODEL,
      centredImpostors: IDENTIFICATION_CENTRED_IMPOSTOR_MODEL,
    },
    ...config.matching,
  };
}
