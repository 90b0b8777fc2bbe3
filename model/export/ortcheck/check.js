// check.js runs a dama ONNX model with ONNX Runtime (onnxruntime-node, CPU)
// for the Go tests of dama/model/export.
//
//   node check.js MODEL.onnx INPUT.f32 BATCH OUTDIR
//
// INPUT.f32 holds BATCH positions of float32 little-endian planes, shape
// [BATCH, 8, 4, 9]. The outputs are written as raw float32 little-endian
// files OUTDIR/<output name>.f32; a JSON summary (ORT version, input and
// output names, output shapes) goes to stdout.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

async function main() {
  const [modelPath, inputPath, batchArg, outDir] = process.argv.slice(2);
  if (!outDir) {
    throw new Error('usage: node check.js MODEL.onnx INPUT.f32 BATCH OUTDIR');
  }
  const batch = parseInt(batchArg, 10);
  const buf = fs.readFileSync(inputPath);
  const want = batch * 8 * 4 * 9 * 4;
  if (buf.length !== want) {
    throw new Error(`${inputPath}: ${buf.length} bytes, want ${want} for batch ${batch}`);
  }
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  feeds[session.inputNames[0]] = new ort.Tensor('float32', data, [batch, 8, 4, 9]);
  const results = await session.run(feeds);
  const summary = {
    ort: ort.env.versions,
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    shapes: {},
  };
  for (const name of session.outputNames) {
    const t = results[name];
    summary.shapes[name] = t.dims;
    const out = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    fs.writeFileSync(path.join(outDir, name + '.f32'), out);
  }
  process.stdout.write(JSON.stringify(summary) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
