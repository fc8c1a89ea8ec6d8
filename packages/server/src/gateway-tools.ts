import {
  AfwError,
  emitTrace,
  type CacheInvalidation,
  type TraceContext,
  type UniversalQueryInput,
  type UniversalQueryError,
} from "@afw/contracts";
import { createBackendTools } from "./backend-tools.js";
import { tool, ToolFailure, type GatewayTool, type ToolContext, type ToolDependencies } from "./gateway-tool.js";

/** Characters of the question and answer a `search_history` hit shows. */
const SNIPPET_CHARS = 240;

function universalErrorBody(error: AfwError, context: { trace: TraceContext; elapsedMs: number }): UniversalQueryError {
  return {
    error: error.message,
    code: error.code,
    attempts: 0,
    backends_tried: [],
    _mcp_metadata: { trace_id: context.trace.traceId, execution_time_ms: context.elapsedMs },
    ...(error.details ? { details: error.details } : {}),
  } as UniversalQueryError;
}

/** Builds the gateway's MCP tools over its parts. The tools are transport-independent; see `createGatewayServer` for how they are served. */
export function createGatewayTools(deps: ToolDependencies): GatewayTool[] {
  const { pipeline, redactor } = deps;
  const runQuery = async (input: UniversalQueryInput, context: ToolContext, toolName: string) => {
    const streaming = input.parameters?.stream === true && context.progress !== undefined;
    const outcome = await pipeline.query(input, {
      trace: context.trace,
      signal: context.signal,
      tool: toolName,
      ...(context.tenant === undefined ? {} : { tenant: context.tenant }),
      ...(context.elicitation === undefined ? {} : { elicitation: context.elicitation }),
      ...(streaming ? { onToken: (text: string) => context.progress!(text), onRestart: () => context.progress!("\n[fallback: the answer restarts]\n") } : {}),
    });
    if (!outcome.ok) throw new ToolFailure(outcome.error as UniversalQueryError & Record<string, unknown>);
    return outcome.result;
  };
  return [
    tool("universal_query", (args, context) => runQuery(args, context, "universal_query"), universalErrorBody),
    tool(
      "flowise_query",
      (args, context) =>
        runQuery(
          {
            question: args.question,
            intent: "auto",
            backend: "flowise",
            timeout: args.timeout,
            ...(args.chatflow_id === undefined ? {} : { flow_id: args.chatflow_id }),
            ...(args.session_id === undefined ? {} : { session_id: args.session_id }),
            ...(args.tags === undefined ? {} : { tags: args.tags }),
            ...(args.allow_fallback === undefined ? {} : { allow_fallback: args.allow_fallback }),
          },
          context,
          "flowise_query",
        ),
      universalErrorBody,
    ),
    ...createBackendTools(deps),
    tool("list_sessions", async (args, context) => {
      const sessions = await deps.stores.sessions.list(args.pattern, {
        limit: args.limit,
        ...(args.tag === undefined ? {} : { tag: args.tag }),
        ...(context.tenant === undefined ? {} : { tenant: context.tenant }),
      });
      return {
        count: sessions.length,
        sessions: sessions.map((s) => ({
          session_id: s.sessionId,
          turns: s.turns,
          ...(s.tags === undefined ? {} : { tags: s.tags }),
          created_at: new Date(s.createdAt).toISOString(),
          updated_at: new Date(s.updatedAt).toISOString(),
        })),
      };
    }),
    tool("search_history", async (args, context) => {
      const search = deps.stores.sessions.search?.bind(deps.stores.sessions);
      if (!search) throw new AfwError("NOT_FOUND", "this session store keeps no searchable history");
      const page = await search(
        {
          limit: args.limit,
          ...(args.text === undefined ? {} : { text: args.text, mode: args.mode }),
          ...(args.tag === undefined ? {} : { tag: args.tag }),
          ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
          ...(args.backend === undefined ? {} : { backendId: args.backend }),
          ...(args.flow_id === undefined ? {} : { flowId: args.flow_id }),
          ...(args.from === undefined ? {} : { from: Date.parse(args.from) }),
          ...(args.to === undefined ? {} : { to: Date.parse(args.to) }),
          ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
        },
        context.tenant === undefined ? undefined : { tenant: context.tenant },
      );
      const snippet = (text: string) => redactor.redact(text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text);
      return {
        count: page.hits.length,
        ...(page.mode === undefined ? {} : { mode: page.mode }),
        hits: page.hits.map(({ sessionId, turn, matchedWords, similarity }) => ({
          session_id: sessionId,
          asked_at: new Date(turn.askedAt).toISOString(),
          ...(turn.flowId ? { flow_id: turn.flowId } : {}),
          ...(turn.backendId ? { backend_id: turn.backendId } : {}),
          ...(turn.tags === undefined || turn.tags.length === 0 ? {} : { tags: turn.tags }),
          question: snippet(turn.question),
          answer: snippet(turn.answer),
          ...(args.text === undefined ? {} : { matched_words: matchedWords }),
          ...(similarity === undefined ? {} : { similarity: Math.round(similarity * 1000) / 1000 }),
        })),
        ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
      };
    }),
    tool("get_session", async (args, context) => {
      const record = await deps.stores.sessions.get(args.session_id, context.tenant === undefined ? undefined : { tenant: context.tenant });
      if (!record) throw new AfwError("NOT_FOUND", `no session '${args.session_id}'`, { details: { session_id: args.session_id } });
      const turns = args.turns === undefined ? record.turnsList : record.turnsList.slice(-args.turns);
      return {
        session_id: record.sessionId,
        turns: record.turns,
        ...(record.tags === undefined ? {} : { tags: record.tags }),
        created_at: new Date(record.createdAt).toISOString(),
        updated_at: new Date(record.updatedAt).toISOString(),
        history: turns.map((t) => ({
          question: t.question,
          answer: t.answer,
          ...(t.flowId ? { flow_id: t.flowId } : {}),
          ...(t.backendId ? { backend_id: t.backendId } : {}),
          ...(t.intent ? { intent: t.intent } : {}),
          ...(t.traceId ? { trace_id: t.traceId } : {}),
          ...(t.tags === undefined || t.tags.length === 0 ? {} : { tags: t.tags }),
          asked_at: new Date(t.askedAt).toISOString(),
          answered_at: new Date(t.answeredAt).toISOString(),
        })),
      };
    }),
    tool("clear_cache", async (args, context) => {
      const selector: CacheInvalidation = {
        ...(args.flow_id === undefined ? {} : { flowId: args.flow_id }),
        ...(args.session_id === undefined ? {} : { sessionId: args.session_id }),
        ...(args.scope === undefined ? {} : { scope: args.scope }),
        ...(args.all === true ? { all: true } : {}),
        ...(context.tenant === undefined ? {} : { tenant: context.tenant }),
      };
      const removed = await deps.stores.cache.invalidate(selector);
      if (args.flow_id !== undefined) pipeline.invalidateFlow(args.flow_id, context.tenant);
      const { tenant: _tenant, ...traced } = selector;
      emitTrace(context.trace, "cache-invalidate", { selector: traced, removed });
      return { removed, selector: { ...args } };
    }),
    tool("search_tools", (args, context) => deps.toolSearch.search(args, { trace: context.trace, signal: context.signal })),
    tool("search_workflow_catalog", async (args, context) => {
      const found = await deps.workflowCatalog.searchWorkflowCatalog(args, { trace: context.trace, signal: context.signal });
      return { count: found.results.length, results: found.results, ...(found.degraded ? { degraded: true } : {}) };
    }),
    tool("get_playbook_details", async (args) => deps.workflowCatalog.getPlaybookDetails(args)),
    tool("explain_routing", async (args, context) => {
      const { question, intent, backend, flow_id: flowId } = args;
      const { classification, decision } = await deps.router.decide({ question, intent, backend, ...(flowId === undefined ? {} : { flowId }) }, context);
      return { classification, decision, trace_id: context.trace.traceId };
    }),
  ];
}
