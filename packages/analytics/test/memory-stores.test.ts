import { createMemoryAuditLog, createMemoryFeedbackStore } from "../src/index.js";
import { createMemoryPriorStore } from "../src/prior-store.js";
import { describeAuditLogSuite } from "./suites/audit-log.case.js";
import { describeFeedbackStoreSuite } from "./suites/feedback-store.case.js";
import { describePriorStoreSuite } from "./suites/prior-store.case.js";

describeAuditLogSuite("memory", async ({ maxLength, maxAgeMs, now }) => {
  const log = createMemoryAuditLog({ capacity: maxLength, maxAgeMs, now });
  return { log, lengthSlack: 0, close: () => log.close() };
});

describeFeedbackStoreSuite("memory", async ({ maxRecords }) => {
  const store = createMemoryFeedbackStore({ maxRecords });
  return { store, close: () => store.close() };
});

describePriorStoreSuite("memory", async () => {
  const store = createMemoryPriorStore();
  return { first: store, second: store, close: () => store.close() };
});
