/** The ports through which the server uses the router and the tool zoo. */
import type {
  FlowExecutionResult,
  Intent,
  GetPlaybookDetailsInput,
  IntentClassification,
  PerformanceSample,
  RoutingCandidate,
  RoutingDecision,
  SearchWorkflowCatalogInput,
  TraceContext,
  UniversalFlow,
  WorkflowDescriptor,
  WorkflowSearchHit,
} from "@afw/contracts";

/** What the router needs to decide where a question goes. */
export interface RoutingRequest {
  /** The question as asked. */
  question: string;
  /** An explicit intent, or `auto` to classify. @default "auto" */
  intent?: Intent | "auto";
  /** `auto`, a backend kind (`flowise`, `langflow`) or a backend id. @default "auto" */
  backend?: string;
  /** Run this flow: a gateway-wide id (`backendId:flowId`) or a platform flow id. */
  flowId?: string;
  /** Let another backend or flow answer when the explicit `backend` / `flowId` cannot (else the choice is binding). @default false */
  allowFallback?: boolean;
}

/** A routing decision with the classification it was made on. */
export interface RoutingOutcome {
  classification: IntentClassification;
  decision: RoutingDecision;
}

/** What to run once a decision is made. */
export interface ExecutionRequest {
  question: string;
  sessionId?: string;
  /** Earlier messages; `rememberedBy` names the flow whose platform memory already holds one. */
  history?: { role: "user" | "assistant" | "system"; content: string; rememberedBy?: string }[];
  parameters?: { temperature?: number; maxTokens?: number };
  /** Stream tokens (when the backend can) and report them through `onToken`. */
  stream?: boolean;
  requestId?: string;
}

/** Options of one execution. */
export interface ExecuteOptions {
  /** Aborts everything (client cancelled, or the overall timeout). */
  signal?: AbortSignal;
  /** Overall deadline, epoch milliseconds: no attempt is started after it, each gets what is left. */
  deadline?: number;
  /** Trace context for backend-call, retry, fallback and circuit events. */
  trace?: TraceContext;
  /** Receives streamed tokens, in order. A fallback after tokens were sent calls `onRestart` first. */
  onToken?: (text: string) => void;
  /** Called when a streamed attempt failed after some tokens and another attempt starts. */
  onRestart?: () => void;
  /** Receives one performance sample per attempt. */
  onAttempt?: (sample: PerformanceSample) => void;
}

/** A successful execution. */
export interface ExecutionOutcome {
  result: FlowExecutionResult;
  /** The candidate that answered. */
  candidate: RoutingCandidate;
  /** Backend attempts made, including the successful one. */
  attempts: number;
  /** True when the answer did not come from the first candidate. */
  fallbackUsed: boolean;
  /** With `fallbackUsed`: why the first candidate did not answer (its error code, or `hedge`). */
  fallbackReason?: string;
  /** Backend ids tried, in order (no duplicates), the first choice included when its open circuit skipped it. */
  backendsTried: string[];
}

/** Ranks candidates and executes with retry and fallback. */
export interface RouterPort {
  /** Classifies the question (unless the intent is explicit) and scores every (backend, flow) candidate; executes nothing. */
  decide(request: RoutingRequest, options?: { signal?: AbortSignal; trace?: TraceContext }): Promise<RoutingOutcome>;
  /** Runs `decision`'s candidates in order with retry, fallback and circuit breaking. */
  execute(decision: RoutingDecision, request: ExecutionRequest, options?: ExecuteOptions): Promise<ExecutionOutcome>;
  /** True when the router records performance samples itself (then the server does not). */
  readonly recordsPerformance?: boolean;
  /** Loads models and warms caches so the first query is fast. */
  warmUp(): Promise<void>;
  /** Releases resources (not the backends: the registry owns them). */
  close(): Promise<void>;
}

/** Result of a workflow-catalog search. */
export interface WorkflowSearchResult {
  results: WorkflowSearchHit[];
  /** True when the semantic stage was unavailable and keyword ranking was used. */
  degraded?: boolean;
}

/** Searches the workflow catalog and returns playbooks. */
export interface WorkflowCatalogPort {
  /** Number of workflows (all versions). */
  readonly size: number;
  /** `search_workflow_catalog`. */
  search(input: SearchWorkflowCatalogInput, options?: { trace?: TraceContext; signal?: AbortSignal }): Promise<WorkflowSearchResult>;
  /** `get_playbook_details`: the workflow, newest version unless `version` is given. */
  get(input: GetPlaybookDetailsInput): Promise<WorkflowDescriptor | undefined>;
}

/** Flows of every backend, for the router and `list_flows`. */
export interface FlowSource {
  /** Every known flow; `refresh` forces rediscovery. */
  flows(options?: { refresh?: boolean; signal?: AbortSignal; trace?: TraceContext }): Promise<UniversalFlow[]>;
}
