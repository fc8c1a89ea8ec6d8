import { INTENTS, type Intent, type UniversalFlow } from "@afw/contracts";
import { foldText, splitWords } from "./text-normalization.js";

/** A flow with everything routing needs precomputed. */
export interface FlowProfile {
  flow: UniversalFlow;
  /** The flow's intents, best first. */
  intents: Intent[];
  /** Bit i set when `INTENTS[i]` is among `intents`. */
  intentMask: number;
  /** Index of the primary intent in {@link INTENTS}, or -1. */
  primaryIntentIndex: number;
  /** Folded keywords. */
  keywords: ReadonlySet<string>;
  generalPurpose: boolean;
}

/**
 * Builds the routing profile of a flow from the flow as given: its intents and `generalPurpose` are what the backend
 * adapter inferred (`inferFlowIntents` of `@afw/backends`) or the registry configured; a flow with no intents matches by
 * its keywords, or as a catch-all when it is `generalPurpose`.
 */
export function buildFlowProfile(flow: UniversalFlow): FlowProfile {
  const intents = flow.intents;
  let intentMask = 0;
  for (const intent of intents) intentMask |= 1 << INTENTS.indexOf(intent);
  const keywords = new Set<string>();
  for (const k of flow.keywords) for (const w of splitWords(foldText(k))) if (w.length > 2) keywords.add(w);
  return {
    flow,
    intents,
    intentMask,
    primaryIntentIndex: intents.length ? INTENTS.indexOf(intents[0]!) : -1,
    keywords,
    generalPurpose: flow.generalPurpose,
  };
}
