// face-api's Node build requires '@tensorflow/tfjs' to re-export it; the station runs it on
// tfjs-core, the converter and the WASM backend, so the umbrella's 280 MB of layers, data and
// WebGL code are not installed. What the umbrella adds to tfjs-core's Node bundle is the chained
// ops (tensor.as3D(), tensor.sub(b), …): tfjs-core ships them only as ES modules that Node cannot
// load, so they are registered here, one method per file of that folder.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');
const core = require('@tensorflow/tfjs-core');

const special = {
  as1D: (t) => core.reshape(t, [t.size]),
  as2D: (t, ...shape) => core.reshape(t, shape),
  as3D: (t, ...shape) => core.reshape(t, shape),
  as4D: (t, ...shape) => core.reshape(t, shape),
  as5D: (t, ...shape) => core.reshape(t, shape),
  asScalar: (t) => {
    if (t.size !== 1) throw new Error('The array must have only 1 element.');
    return core.reshape(t, []);
  },
  asType: (t, dtype) => core.cast(t, dtype),
  flatten: (t) => core.reshape(t, [t.size]),
  reshapeAs: (t, x) => core.reshape(t, x.shape),
  toBool: (t) => core.cast(t, 'bool'),
  toFloat: (t) => core.cast(t, 'float32'),
  toInt: (t) => core.cast(t, 'int32'),
  where: (t, condition, x) => core.where(condition, t, x),
  concat: (t, x, axis) => core.concat([t, ...(x instanceof core.Tensor ? [x] : x)], axis),
  stack: (t, x, axis) => core.stack(x instanceof core.Tensor ? [t, x] : [t, ...x], axis),
};

const chained = path.join(path.dirname(require.resolve('@tensorflow/tfjs-core/package.json')), 'dist', 'public', 'chained_ops');
const proto = core.Tensor.prototype;
for (const file of readdirSync(chained)) {
  if (!file.endsWith('.js') || file.endsWith('_test.js')) continue;
  for (const [, name] of readFileSync(path.join(chained, file), 'utf8').matchAll(/prototype\.(\w+)\s*=/g)) {
    const op = special[name] ?? (typeof core[name] === 'function' ? (t, ...args) => core[name](t, ...args) : null);
    if (!op || Object.prototype.hasOwnProperty.call(proto, name)) continue;
    proto[name] = function (...args) {
      this.throwIfDisposed();
      return op(this, ...args);
    };
  }
}

module.exports = { ...core, ...require('@tensorflow/tfjs-converter') };
