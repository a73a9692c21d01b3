/**
 * A 2026-07-28 JSON-RPC client over Streamable HTTP for the Tasks extension (SEP-2663), for the
 * serve suites: the v2 SDK client 2.4.0 refuses a `resultType: "task"` result
 * (`UNSUPPORTED_RESULT_TYPE`) and sends no `tasks/*` method at 2026-07-28, so the tests speak
 * the wire themselves: every request carries the per-request `_meta` envelope (protocol
 * version, client capabilities and info) and the standard headers (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` mirroring `params.name` / `params.taskId`), as the spec says.
 */

/** The Tasks extension's identifier. */
export const TASKS = "io.modelcontextprotocol/tasks";
const VERSION = "2026-07-28";

/** One JSON-RPC answer: its result or its error. */
export interface Answer {
  readonly status: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** A client of one endpoint with one bearer token. */
export class ModernClient {
  readonly #url: URL;
  readonly #token: string;
  readonly #declaresTasks: boolean;
  readonly #extra: Record<string, unknown>;
  #id = 0;

  /**
   * @param url the endpoint
   * @param token the client's bearer token
   * @param declaresTasks whether its requests declare the Tasks extension
   * @param capabilities further client capabilities its requests declare (`elicitation`)
   */
  constructor(
    url: URL,
    token: string,
    declaresTasks = true,
    capabilities: Record<string, unknown> = {},
  ) {
    this.#url = url;
    this.#token = token;
    this.#declaresTasks = declaresTasks;
    this.#extra = capabilities;
  }

  /** Sends one request; answers its result or error (a non-JSON-RPC answer throws). */
  async request(method: string, params: Record<string, unknown> = {}): Promise<Answer> {
    const capabilities = {
      ...this.#extra,
      ...(this.#declaresTasks ? { extensions: { [TASKS]: {} } } : {}),
    };
    const body = {
      jsonrpc: "2.0",
      id: ++this.#id,
      method,
      params: {
        ...params,
        _meta: {
          ...(params._meta as Record<string, unknown> | undefined),
          "io.modelcontextprotocol/protocolVersion": VERSION,
          "io.modelcontextprotocol/clientCapabilities": capabilities,
          "io.modelcontextprotocol/clientInfo": { name: "modern-tasks-test", version: "0" },
        },
      },
    };
    const headers = new Headers({
      authorization: `Bearer ${this.#token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": method,
    });
    const name = method === "tools/call" ? params.name : params.taskId;
    if (typeof name === "string") headers.set("mcp-name", name);
    const response = await fetch(this.#url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes("text/event-stream")
      ? lastEvent(text)
      : JSON.parse(text);
    return {
      status: response.status,
      ...(json.result ? { result: json.result } : {}),
      ...(json.error ? { error: json.error } : {}),
    };
  }

  /** `tasks/get` every `everyMs` until the task is no longer `working`. */
  async untilEnded(
    taskId: string,
    everyMs = 50,
    limitMs = 20_000,
  ): Promise<Record<string, unknown>> {
    const start = Date.now();
    for (;;) {
      const { result, error } = await this.request("tasks/get", { taskId });
      if (error !== undefined) throw new Error(`tasks/get: ${JSON.stringify(error)}`);
      if (result?.status !== "working") return result!;
      if (Date.now() - start > limitMs) throw new Error(`task ${taskId} still working`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}

/** The last JSON-RPC message of an SSE body. */
function lastEvent(text: string): Record<string, unknown> {
  const data = text.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
    line.slice(5).trim()
  ).filter((line) => line.length > 0);
  return JSON.parse(data[data.length - 1]!);
}
