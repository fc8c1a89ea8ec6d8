/** The ports through which the server uses the router and the tool zoo. */
import type {
  BackendHealth,
  FlowExecutionResult,
  Intent,
  IntentClassification,
  RoutingCandidate,
  RoutingDecision,
  TraceContext,
  UniversalFlow,
} from "@afw/contracts";
import type { WorkflowCatalog } from "@afw/tool-zoo";

/** What the router needs to decide where a question goes: `intent` and `backend` (a kind or an id) default to `auto`; an explicit `backend` or
 * `flowId` (gateway-wide `backendId:flowId` or a platform id) is binding unless `allowFallback`. */
export interface RoutingRequest {
  question: string;
  intent?: Intent | "auto";
  backend?: string;
  flowId?: string;
  allowFallback?: boolean;
}

/** A routing decision with the classification it was made on. */
export interface RoutingOutcome {
  classification: IntentClassification;
  decision: RoutingDecision;
}

/** What to run once a decision is made; `rememberedBy` names the flow whose platform memory already holds a history message, and `stream`
 * asks for tokens through {@link ExecuteOptions.onToken}. */
export interface ExecutionRequest {
  question: string;
  sessionId?: string;
  history?: { role: "user" | "assistant" | "system"; content: string; rememberedBy?: string }[];
  parameters?: { temperature?: number; maxTokens?: number };
  stream?: boolean;
  requestId?: string;
}

/** Options of one execution: `deadline` (epoch ms) bounds every attempt; `onToken` receives streamed tokens in order, `onRestart` is called when
 * another attempt starts over after some tokens were sent. */
export interface ExecuteOptions {
  signal?: AbortSignal;
  deadline?: number;
  trace?: TraceContext;
  onToken?: (text: string) => void;
  onRestart?: () => void;
}

/** A successful execution: the answering candidate, the attempts made (the successful one included), why the first candidate did not answer
 * when `fallbackUsed` (its error code, or `hedge`), and the backend ids tried in order (a first choice skipped for its open circuit included). */
export interface ExecutionOutcome {
  result: FlowExecutionResult;
  candidate: RoutingCandidate;
  attempts: number;
  fallbackUsed: boolean;
  fallbackReason?: string;
  backendsTried: string[];
}

/** Ranks candidates and executes with retry, fallback and circuit breaking (`@afw/router` through `afw-router-adapter.ts`). */
export interface RouterPort {
  /** Classifies the question (unless the intent is explicit) and scores every (backend, flow) candidate; executes nothing. */
  decide(request: RoutingRequest, options?: { signal?: AbortSignal; trace?: TraceContext }): Promise<RoutingOutcome>;
  execute(decision: RoutingDecision, request: ExecutionRequest, options?: ExecuteOptions): Promise<ExecutionOutcome>;
  /** Probes backends now (every one, or `backendId`) with the router's health cache, which shares the snapshots through the health store. */
  checkHealth(backendId?: string, trace?: TraceContext): Promise<BackendHealth[]>;
  /** The latest fresh health snapshot of a backend in the shared health store, if any. */
  latestHealth(backendId: string): Promise<BackendHealth | undefined>;
  /** Loads models and warms caches so the first query is fast. */
  warmUp(): Promise<void>;
  /** Releases resources (not the backends: the registry owns them). */
  close(): Promise<void>;
}

/** The workflow catalog the gateway's `search_workflow_catalog` and `get_playbook_details` tools use (`@afw/tool-zoo`'s, or a test's). */
export type WorkflowCatalogPort = Pick<WorkflowCatalog, "searchWorkflowCatalog" | "getPlaybookDetails">;

/** Flows of every backend, for the router and `list_flows`. */
export interface FlowSource {
  /** Every known flow; `refresh` forces rediscovery. */
  flows(options?: { refresh?: boolean; signal?: AbortSignal; trace?: TraceContext }): Promise<UniversalFlow[]>;
}
