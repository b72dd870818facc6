// Every field the contract names (../shared/spec/service-api.md, sections 2.1-2.4), and those its
// vendor notes name for the operations the document leaves open (vendor-notes.md), with their JSON
// types, by path: `a.b` a property, `a[]` the items of an array. The vendor's `subjectId` is our
// `idPersona` (docs/api-design.md).

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';
export type FieldList = readonly (readonly [path: string, type: JsonType])[];

export const ENVELOPE_FIELDS: FieldList = [
  ['success', 'boolean'],
  ['error', 'object'],
  ['error.codigo', 'integer'],
  ['error.descripcion', 'string'],
  ['error.tipo', 'string'],
  ['data', 'object'],
];

const point = (p: string): FieldList => [
  [p, 'object'],
  [`${p}.confidence`, 'number'],
  [`${p}.num`, 'number'],
  [`${p}.x`, 'number'],
  [`${p}.y`, 'number'],
];
const region = (p: string): FieldList => [
  [p, 'object'],
  [`${p}.confidence`, 'number'],
  [`${p}.height`, 'number'],
  [`${p}.width`, 'number'],
  [`${p}.x`, 'number'],
  [`${p}.y`, 'number'],
];

/** Section 2.3's parametros and their facePoseSensibility, as request fields. */
export const EXTRACT_PARAMETERS: Readonly<Record<string, JsonType>> = {
  blinkSensibility: 'number',
  detectAge: 'boolean',
  detectEmotion: 'boolean',
  detectExpression: 'boolean',
  detectGender: 'boolean',
  detectOnlyMajorFace: 'boolean',
  detectTraitsAndActions: 'boolean',
  facePoseSensibility: 'object',
  maxCLAHE: 'number',
  maxRoll: 'number',
  maxYaw: 'number',
  minCLAHE: 'number',
  minConfidence: 'number',
  minIOD: 'number',
  minQuality: 'number',
  scaleH: 'number',
  thumbnailWidth: 'number',
  useCLAHE: 'boolean',
  useCache: 'boolean',
  videoFramesSeq: 'number',
};
export const FACE_POSE_SENSIBILITY = [
  'lookingDownwardsPitchAngle',
  'lookingFront',
  'lookingLeftYawAngle',
  'lookingRightYawAngle',
  'lookingUpwardsPitchAngle',
] as const;

/** Section 2.4's `properties`. */
const PROPERTIES: FieldList = [
  ['properties', 'object'],
  ['properties.age', 'number'],
  ['properties.clahe', 'number'],
  ['properties.confidence', 'number'],
  ['properties.emotion', 'object'],
  ...(['anger', 'disgust', 'fear', 'happiness', 'neutral', 'sadness', 'surprise'] as const).map(
    (e) => [`properties.emotion.${e}`, 'number'] as const,
  ),
  ['properties.expression', 'object'],
  ['properties.expression.confidence', 'number'],
  ['properties.expression.type', 'string'],
  ['properties.gender', 'object'],
  ['properties.gender.confidence', 'number'],
  ['properties.gender.type', 'string'],
  ...point('properties.leftEyePoint'),
  ...point('properties.rightEyePoint'),
  ...point('properties.nosePoint'),
  ...region('properties.leftEyeRegion'),
  ...region('properties.rightEyeRegion'),
  ...region('properties.noseRegion'),
  ['properties.position', 'object'],
  ...(['height', 'pitch', 'roll', 'width', 'x', 'y', 'yaw'] as const).map((k) => [`properties.position.${k}`, 'number'] as const),
  ['properties.position.points', 'array'],
  ...point('properties.position.points[]'),
  ['properties.thumbnail', 'string'],
  ['properties.traits', 'object'],
  ...(
    [
      'ambosOjosCerrados',
      'leftEyeClosed',
      'rightEyeClosed',
      'lookingDownward',
      'lookingFront',
      'lookingLeft',
      'lookingRight',
      'lookingUpward',
    ] as const
  ).map((k) => [`properties.traits.${k}`, 'boolean'] as const),
  ...(['beard', 'darkGlasses', 'glasses', 'hat', 'mustache', 'openMouth'] as const).map(
    (k) => [`properties.traits.${k}`, 'number'] as const,
  ),
];

const FACE_RESULT: FieldList = [
  ['face', 'object'],
  ['face.image', 'string'],
  ['face.template', 'string'],
  ['faceImage', 'string'],
  ...PROPERTIES,
  ['uiTemplateMetadata', 'object'],
  ['uiTemplateMetadata.fechaCreacionTemplate', 'string'],
];

const MATCH: FieldList = [
  ['confidence', 'number'],
  ['score', 'number'],
  ['faP', 'number'],
];

const date = (p: string): FieldList => [
  [p, 'object'],
  [`${p}.day`, 'integer'],
  [`${p}.month`, 'integer'],
  [`${p}.year`, 'integer'],
];

/** The fields of each operation's `data` the contract or the vendor names; every one also carries exception. */
export const RESPONSE_FIELDS: Readonly<Record<string, FieldList>> = {
  enroll: [['status', 'string']],
  verify: [['status', 'string'], ...MATCH],
  identify: [['status', 'string'], ['idPersona', 'string'], ...MATCH],
  extractFace: [['status', 'string'], ...FACE_RESULT],
  spoof: [['status', 'string'], ['confidence', 'number'], ...FACE_RESULT],
  extractDni: [
    ['status', 'string'],
    ['suggestedAction', 'string'],
    ['documentInfo', 'object'],
    ...(
      [
        'surname',
        'givenNames',
        'documentNumber',
        'cuilNumber',
        'sex',
        'nationality',
        'issuingCountry',
        'address',
        'order',
        'sequence',
        'documentVersion',
        'face',
        'fingerPrint',
      ] as const
    ).map((k) => [`documentInfo.${k}`, 'string'] as const),
    ['documentInfo.addressConfidence', 'number'],
    ...date('documentInfo.dateOfBirth'),
    ...date('documentInfo.issuingDate'),
    ...date('documentInfo.expirationDate'),
    ['mrz', 'object'],
    ['mrz.lines', 'array'],
    ['mrzDetected', 'boolean'],
    ['pdf417', 'object'],
    ['pdf417.raw', 'string'],
    ['pdf417Detected', 'boolean'],
    ['frontImage', 'string'],
    ['backImage', 'string'],
    ['uiTemplateMetadata', 'object'],
    ['uiTemplateMetadata.fechaCreacionTemplate', 'string'],
  ],
};

/** Fields every operation's `data` carries (section 2.1's generic shape, and the vendor's `exception`). */
export const COMMON_DATA_FIELDS: FieldList = [
  ['status', 'string'],
  ['txId', 'string'],
  ['exception', 'boolean'],
];

/** Request fields the contract or the vendor names, by operation (`auditToken` on all of them). */
export const REQUEST_FIELDS: Readonly<Record<string, FieldList>> = {
  enroll: [
    ['idPersona', 'string'],
    ['template', 'string'],
  ],
  verify: [
    ['idPersona', 'string'],
    ['template', 'string'],
  ],
  identify: [['template', 'string']],
  extractFace: [
    ['template', 'string'],
    ['parametros', 'object'],
    ...Object.entries(EXTRACT_PARAMETERS).map(([k, type]) => [`parametros.${k}`, type] as const),
    ...FACE_POSE_SENSIBILITY.map((k) => [`parametros.facePoseSensibility.${k}`, 'number'] as const),
  ],
  spoof: [
    ['template', 'string'],
    ['image', 'string'],
    ['parametros.threshold', 'number'],
    ['parametros.extractFace', 'boolean'],
  ],
  extractDni: [
    ['template', 'string'],
    ...(['extractFace', 'extractMRZ', 'extractPDF417', 'useCache'] as const).map((k) => [`parametros.${k}`, 'boolean'] as const),
  ],
};
