// Loads a TF.js Graph model (model.json + shards) with @tensorflow/tfjs's tf.loadGraphModel through a file-reading
// IOHandler (no tfjs-node) and prints its predictions as JSON.
// usage: node predict_graph.js JOBS.json, JOBS.json = [{"dir": MODEL_DIR, "input": INPUT.bin, "shape": [...]}]
// (INPUT.bin: little-endian float32); prints one result per job (or {"error": message}) as a JSON list.
const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

function fileHandler(dir) {
  return {
    load: async () => {
      const doc = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      const specs = [];
      const parts = [];
      for (const group of doc.weightsManifest) {
        specs.push(...group.weights);
        for (const p of group.paths) parts.push(fs.readFileSync(path.join(dir, p)));
      }
      const buf = Buffer.concat(parts);
      return {
        format: doc.format, generatedBy: doc.generatedBy, convertedBy: doc.convertedBy,
        modelTopology: doc.modelTopology, signature: doc.signature, userDefinedMetadata: doc.userDefinedMetadata,
        weightSpecs: specs, weightData: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength),
      };
    },
  };
}

async function predict(job) {
  const model = await tf.loadGraphModel(fileHandler(job.dir));
  const raw = fs.readFileSync(job.input);
  const x = tf.tensor(new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4), job.shape);
  const y = model.predict(x);
  const out = y instanceof tf.Tensor ? y : (Array.isArray(y) ? y[0] : Object.values(y)[0]);
  return {shape: out.shape, values: Array.from(await out.data()), inputs: model.inputs.map((t) => t.name),
          outputs: model.outputs.map((t) => t.name), metadata: model.metadata || null};
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const results = [];
  for (const job of jobs) {
    try {
      results.push(await predict(job));
    } catch (e) {
      results.push({error: String(e && e.message || e)});
    }
  }
  process.stdout.write(JSON.stringify(results));
}
main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
