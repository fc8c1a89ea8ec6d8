import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BackendError } from "@afw/contracts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFlowiseBackend } from "./flowise-backend.js";
import { createLangflowBackend } from "./langflow-backend.js";

// A platform that answers whatever the test says: hostile replies a real Flowise/Langflow (or
// something pretending to be one) could send. Each test sets `reply`.
type Reply = (request: IncomingMessage, response: ServerResponse) => void;
interface Hostile {
  server: Server;
  url: string;
  reply: Reply;
  seen: { url: string; headers: IncomingMessage["headers"] }[];
  bytesWritten: number;
}

async function startHostile(): Promise<Hostile> {
  const state: Hostile = { server: undefined as unknown as Server, url: "", reply: (_q, s) => s.end(), seen: [], bytesWritten: 0 };
  state.server = createServer((request, response) => {
    state.seen.push({ url: request.url ?? "", headers: request.headers });
    request.resume();
    request.on("end", () => state.reply(request, response));
  });
  await new Promise<void>((resolve) => state.server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

/** Writes `total` bytes of `filler` as fast as the client reads them, counting what was written. */
function flood(state: Hostile, response: ServerResponse, total: number, prefix = "", filler = "a"): void {
  const chunk = filler.repeat(64 * 1024);
  let written = 0;
  response.write(prefix);
  const pump = () => {
    while (written < total) {
      written += chunk.length;
      state.bytesWritten += chunk.length;
      if (!response.write(chunk)) return void response.once("drain", pump);
    }
    response.end();
  };
  response.on("error", () => undefined);
  pump();
}

const KEY = "afw-test-secret-hostile-0001";
let platform: Hostile;
let elsewhere: Hostile;
beforeAll(async () => {
  platform = await startHostile();
  elsewhere = await startHostile();
});
afterEach(() => {
  platform.seen.length = 0;
  elsewhere.seen.length = 0;
  platform.bytesWritten = 0;
});
afterAll(async () => {
  platform.server.closeAllConnections();
  elsewhere.server.closeAllConnections();
  await Promise.all([new Promise((r) => platform.server.close(r)), new Promise((r) => elsewhere.server.close(r))]);
});

const flowise = () => createFlowiseBackend({ id: "fw", baseURL: platform.url, apiKey: KEY, discovery: "configured-only", flows: { chat: { name: "Chat" } } });
const langflow = () => createLangflowBackend({ id: "lf", baseURL: platform.url, apiKey: KEY, discovery: "configured-only", flows: { chat: { name: "Chat" } } });

async function failure(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(BackendError.isInstance(error), `expected a BackendError, got ${String(error)}`).toBe(true);
  return error as BackendError;
}

describe.each([
  ["flowise", flowise],
  ["langflow", langflow],
] as const)("hostile replies to %s", (_kind, create) => {
  it("an HTML page instead of JSON is a typed BACKEND_BAD_RESPONSE that does not reflect the page", async () => {
    platform.reply = (_q, s) => s.writeHead(200, { "content-type": "text/html" }).end("<html><script>alert('pwned')</script></html>");
    const error = await failure(create().execute({ flowId: "chat", question: "hi" }));
    expect(error.code).toBe("BACKEND_BAD_RESPONSE");
    expect(error.message).not.toContain("<script>");
    expect(error.message).not.toContain(KEY);
  });

  it("a huge body with content-length is refused before reading", async () => {
    platform.reply = (_q, s) => {
      s.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) });
      flood(platform, s, 50 * 1024 * 1024, '{"text":"');
    };
    const error = await failure(create().execute({ flowId: "chat", question: "hi" }));
    expect(error.code).toBe("BACKEND_BAD_RESPONSE");
    expect(error.message).toMatch(/larger than 10485760 bytes/);
    expect(error.isRetryable).toBe(false);
  });

  it("a huge chunked body is cut off at the limit (the rest is never read)", async () => {
    platform.reply = (_q, s) => {
      s.writeHead(200, { "content-type": "application/json" });
      flood(platform, s, 200 * 1024 * 1024, '{"text":"');
    };
    const error = await failure(create().execute({ flowId: "chat", question: "hi" }));
    expect(error.code).toBe("BACKEND_BAD_RESPONSE");
    expect(error.message).toMatch(/larger than/);
    // The reader stopped: the platform could not push the whole 200 MB through the closed socket.
    expect(platform.bytesWritten).toBeLessThan(100 * 1024 * 1024);
  });

  it("invalid UTF-8 is decoded with replacement characters, never thrown", async () => {
    const body = Buffer.concat([Buffer.from(_kind === "flowise" ? '{"text":"ok ' : '{"outputs":[{"outputs":[{"results":{"message":{"text":"ok '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(_kind === "flowise" ? ' end"}' : ' end"}}}]}]}')]);
    platform.reply = (_q, s) => s.writeHead(200, { "content-type": "application/json" }).end(body);
    const result = await create()
      .execute({ flowId: "chat", question: "hi" })
      .then(
        (r) => r,
        (e: unknown) => e,
      );
    if (BackendError.isInstance(result)) {
      expect(result.code).toBe("BACKEND_BAD_RESPONSE");
    } else {
      const text = (result as { text: string }).text;
      expect(text).toContain("ok");
      expect(text).toContain("\uFFFD");
      expect(text).toContain("end");
    }
  });

  it("a JSON bomb (deep nesting, many keys) within the size limit gives a typed result, no crash", async () => {
    const depth = 200_000;
    const deep = `{"text":"fine","bomb":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    platform.reply = (_q, s) => s.writeHead(200, { "content-type": "application/json" }).end(deep);
    const outcome = await create()
      .execute({ flowId: "chat", question: "hi" })
      .then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
    if (outcome.ok) {
      // Whatever is kept of the reply must stay serialisable (it is cached and traced).
      expect(() => JSON.stringify(outcome.r)).not.toThrow();
    } else {
      expect(BackendError.isInstance(outcome.e)).toBe(true);
    }
    const wide = `{"text":"fine",${Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
    platform.reply = (_q, s) => s.writeHead(200, { "content-type": "application/json" }).end(wide);
    await create()
      .execute({ flowId: "chat", question: "hi" })
      .catch((e: unknown) => expect(BackendError.isInstance(e)).toBe(true));
  });

  it("does not follow a redirect to another origin (the API key stays home)", async () => {
    platform.reply = (_q, s) => s.writeHead(307, { location: `${elsewhere.url}/steal` }).end();
    elsewhere.reply = (_q, s) => s.writeHead(200, { "content-type": "application/json" }).end('{"text":"stolen"}');
    const error = await failure(create().execute({ flowId: "chat", question: "hi" }));
    expect(error.code).toBe("BACKEND_BAD_RESPONSE");
    expect(error.message).toContain("another origin");
    expect(elsewhere.seen).toHaveLength(0);
  });

  it("follows a same-origin redirect, keeping the method and body for 307", async () => {
    let first = true;
    platform.reply = (request, s) => {
      if (first) {
        first = false;
        s.writeHead(307, { location: `${request.url}?moved=1` }).end();
        return;
      }
      s.writeHead(200, { "content-type": "application/json" }).end(
        _kind === "flowise" ? '{"text":"moved answer"}' : '{"outputs":[{"outputs":[{"results":{"message":{"text":"moved answer"}}}]}]}',
      );
    };
    const result = await create().execute({ flowId: "chat", question: "hi" });
    expect(result.text).toBe("moved answer");
    expect(platform.seen).toHaveLength(2);
    expect(platform.seen[1]!.url).toContain("moved=1");
  });
});
