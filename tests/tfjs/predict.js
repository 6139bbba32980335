// Loads a TF.js Layers model (model.json + shards) with @tensorflow/tfjs and prints its predictions as JSON.
// usage: node predict.js MODEL_DIR INPUT.bin SHAPE_JSON  (INPUT.bin: little-endian float32)
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

async function main() {
  const [dir, input, shapeJson] = process.argv.slice(2);
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const specs = [];
  const parts = [];
  for (const group of doc.weightsManifest) {
    specs.push(...group.weights);
    for (const p of group.paths) parts.push(fs.readFileSync(path.join(dir, p)));
  }
  const buf = Buffer.concat(parts);
  const weightData = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const model = await tf.loadLayersModel(tf.io.fromMemory({modelTopology: doc.modelTopology, weightSpecs: specs, weightData}));
  const raw = fs.readFileSync(input);
  const x = tf.tensor(new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4), JSON.parse(shapeJson));
  const y = model.predict(x);
  process.stdout.write(JSON.stringify({shape: y.shape, values: Array.from(await y.data())}));
}
main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
