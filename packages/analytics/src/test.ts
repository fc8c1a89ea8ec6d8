/**
 * `@afw/analytics/test`: a synthetic traffic generator that emits trace events exactly as the
 * gateway does, for tests of the analytics, the learned prior and the MCP tools.
 *
 * @packageDocumentation
 */
export {
  createTrafficGenerator,
  type TrafficGenerator,
  type TrafficGeneratorOptions,
  type SyntheticFlow,
  type SyntheticCall,
  type SyntheticOutcome,
  type SyntheticQuery,
  type SyntheticQueryResult,
  type QuestionText,
} from "./testing/traffic-generator.js";
export { parseCsv } from "./testing/parse-csv.js";
