/**
 * Entry point of the repository's train, eval and latency scripts (`dist/training.js`): the model
 * training and evaluation helpers. Not in the package's exports map, so not part of its API.
 *
 * @internal
 * @packageDocumentation
 */
export { buildCalibrationTable, parseIntentExemplars, trainIntentModel } from "./intent-model.js";
export { BUNDLED_INTENT_EXEMPLARS_URL, bundledIntentModelUrl, loadBundledIntentModel, serializeIntentModel } from "./intent-model-file.js";
export { compileIntentPatterns } from "./intent-patterns.js";
export { DEFAULT_INTENT_PATTERNS } from "./default-intent-patterns.js";
export { createIntentClassifier } from "./intent-classifier.js";
