import type { DocumentGuidanceState } from './document-guidance.js';
import type { FaceGuidanceState } from './face-guidance.js';

export type Locale = 'es-AR' | 'en';

/** What the person in front of the camera reads, per guidance state. */
export const FACE_MESSAGES: Record<Locale, Record<FaceGuidanceState, string>> = {
  'es-AR': {
    ok: 'Perfecto, quédese así.',
    'no-face': 'No se ve ningún rostro: mire a la cámara.',
    'several-faces': 'Hay más de una persona: que quede solo una frente a la cámara.',
    'too-dark': 'Hay poca luz: busque un lugar más iluminado.',
    'too-bright': 'Hay demasiada luz: evite la luz directa sobre la cara.',
    'too-far': 'Acérquese a la cámara.',
    'too-close': 'Aléjese un poco de la cámara.',
    'off-centre': 'Ubique la cara en el centro.',
    turned: 'Mire de frente, con la cabeza derecha.',
    'eyes-closed': 'Mantenga los ojos abiertos.',
  },
  en: {
    ok: 'Perfect, hold still.',
    'no-face': 'No face in view: look at the camera.',
    'several-faces': 'More than one person: only one should face the camera.',
    'too-dark': 'Too dark: find more light.',
    'too-bright': 'Too bright: avoid direct light on the face.',
    'too-far': 'Come closer to the camera.',
    'too-close': 'Move back a little.',
    'off-centre': 'Centre your face.',
    turned: 'Face the camera, head straight.',
    'eyes-closed': 'Keep your eyes open.',
  },
};

export const DOCUMENT_MESSAGES: Record<Locale, Record<DocumentGuidanceState, string>> = {
  'es-AR': {
    ok: 'Quieto… capturando.',
    'no-card': 'Ubique el documento dentro del recuadro.',
    moving: 'Mantenga el documento quieto.',
    blurry: 'La imagen está borrosa: acerque o enfoque el documento.',
    'too-dark': 'Hay poca luz sobre el documento.',
    'too-bright': 'Hay reflejos: incline un poco el documento.',
  },
  en: {
    ok: 'Hold still… capturing.',
    'no-card': 'Place the document inside the outline.',
    moving: 'Hold the document still.',
    blurry: 'The image is blurry: bring the document into focus.',
    'too-dark': 'Too little light on the document.',
    'too-bright': 'Glare: tilt the document slightly.',
  },
};

export const LABELS = {
  'es-AR': {
    forceCapture: 'Capturar ahora',
    uploadFace: 'o subir una foto',
    loading: 'Cargando modelos de guía…',
    cameraError: 'No se pudo abrir la cámara',
    recording: (n: number, max: number) => `Capturando ${n} de ${max}…`,
    captured: (n: number) => `Capturado (${n} ${n === 1 ? 'imagen' : 'imágenes'}).`,
    retry: 'Repetir',
    front: 'Frente del documento',
    back: 'Dorso del documento',
    uploadFront: 'Subir frente',
    uploadBack: 'Subir dorso',
    done: 'Listo',
    skipBack: 'Continuar sin dorso',
    flip: 'Dé vuelta el documento y muestre el dorso.',
    badFile: 'El archivo no es una imagen que se pueda leer.',
    guidanceUnavailable: 'Guía no disponible: use la captura manual.',
  },
  en: {
    forceCapture: 'Capture now',
    uploadFace: 'or upload a photo',
    loading: 'Loading guidance models…',
    cameraError: 'Could not open the camera',
    recording: (n: number, max: number) => `Capturing ${n} of ${max}…`,
    captured: (n: number) => `Captured (${n} ${n === 1 ? 'image' : 'images'}).`,
    retry: 'Retake',
    front: 'Document front',
    back: 'Document back',
    uploadFront: 'Upload front',
    uploadBack: 'Upload back',
    done: 'Done',
    skipBack: 'Continue without back',
    flip: 'Turn the document over to show the back.',
    badFile: 'The file is not a readable image.',
    guidanceUnavailable: 'Guidance unavailable: use manual capture.',
  },
} as const;
