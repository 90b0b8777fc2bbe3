// check.js runs a dama ONNX model with ONNX Runtime (onnxruntime-node, CPU)
// for the Go tests of dama/model/export.
//
//   node check.js MODEL.onnx INPUT.f32 BATCH OUTDIR [REPEAT]
//
// INPUT.f32 holds BATCH positions of float32 little-endian planes, shape
// [BATCH, 8, 4, 9]. The outputs are written as raw float32 little-endian
// files OUTDIR/<output name>.f32; a JSON summary (ORT version, input and
// output names, output shapes) goes to stdout. With REPEAT the session runs
// on one thread and the summary adds "timing": REPEAT more runs after one
// warm-up, their wall and CPU seconds and positions per second of each.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

async function main() {
  const [modelPath, inputPath, batchArg, outDir, repeatArg] = process.argv.slice(2);
  const repeat = repeatArg ? parseInt(repeatArg, 10) : 0;
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
  const options = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
  };
  if (repeat > 0) {
    options.intraOpNumThreads = 1;
    options.interOpNumThreads = 1;
    options.executionMode = 'sequential';
  }
  const session = await ort.InferenceSession.create(modelPath, options);
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
  if (repeat > 0) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < repeat; i++) {
      await session.run(feeds);
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    const cpuSec = (cpu.user + cpu.system) / 1e6;
    summary.timing = {
      runs: repeat,
      wallSeconds: wall,
      cpuSeconds: cpuSec,
      positionsPerSecond: (repeat * batch) / wall,
      positionsPerCPUSecond: (repeat * batch) / cpuSec,
    };
  }
  process.stdout.write(JSON.stringify(summary) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
