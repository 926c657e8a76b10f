// Sends each opencode tool call to `agent-shell hook --agent=opencode` and
// blocks it (throws) unless agent-shell allows it. opencode hooks are
// in-process, so this plugin is the only place agent-shell can block a call:
// it fails closed. A spawn error, a non-zero exit, an answer that is not the
// expected JSON, or no answer within the timeout blocks the call.
//
// Request (protocol v1), one JSON object on agent-shell's stdin:
//   {"v":1,"event":"tool.execute.before"|"tool.execute.after","tool":input.tool,
//    "sessionID":input.sessionID,"callID":input.callID,"args":output.args,
//    "cwd":directory[,"result":{"title","output","metadata"}]}
// Answer to tool.execute.before, on stdout with exit status 0:
//   {"decision":"allow"[,"args":{...}]} runs the call, with "args" merged
//   over output.args when present; {"decision":"deny","reason":"..."} throws.
import { spawn } from "node:child_process"

const PROTOCOL = 1
const COMMAND = "agent-shell"
const COMMAND_ARGS = ["hook", "--agent=opencode"]

// opencode waits for a plugin without a timeout of its own: a hung hook
// would hang the agent.
const TIMEOUT_MS = Number(process.env.AGENT_SHELL_HOOK_TIMEOUT_MS) > 0
  ? Number(process.env.AGENT_SHELL_HOOK_TIMEOUT_MS)
  : 10000

// agent-shell reads at most 1 MiB of request: a recording is cut to fit.
const MAX_RECORD_BYTES = 512 * 1024

// Arguments of allowed calls by callID, for opencode versions whose
// tool.execute.after input has no args. Bounded: a failed call never reaches
// tool.execute.after.
const pending = new Map()
const MAX_PENDING = 256

function run(directory, body) {
  return new Promise((resolve, reject) => {
    let child
    try {
      child = spawn(COMMAND, COMMAND_ARGS, { cwd: directory, stdio: ["pipe", "pipe", "pipe"] })
    } catch (err) {
      reject(new Error(`agent-shell: cannot run ${COMMAND}: ${err.message}`))
      return
    }
    const stdout = []
    const stderr = []
    let settled = false
    let timer
    const settle = (fn, value) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      fn(value)
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL")
      settle(reject, new Error(`agent-shell: no answer within ${TIMEOUT_MS} ms; the tool call is blocked`))
    }, TIMEOUT_MS)
    child.on("error", (err) => settle(reject, new Error(`agent-shell: cannot run ${COMMAND}: ${err.message}`)))
    child.stdout.on("data", (chunk) => stdout.push(chunk))
    child.stderr.on("data", (chunk) => stderr.push(chunk))
    child.on("close", (code, signal) => settle(resolve, {
      code,
      signal,
      stdout: Buffer.concat(stdout).toString("utf8"),
      stderr: Buffer.concat(stderr).toString("utf8"),
    }))
    child.stdin.on("error", () => {}) // a child that exits unread says why by its exit status
    child.stdin.end(body)
  })
}

function detail(stderr) {
  const s = stderr.trim()
  return s === "" ? "" : `: ${s}`
}

// verdict returns an allow answer and throws for everything else.
function verdict(res) {
  if (res.signal) throw new Error(`agent-shell: killed by ${res.signal}${detail(res.stderr)}; the tool call is blocked`)
  if (res.code !== 0) throw new Error(`agent-shell: exit status ${res.code}${detail(res.stderr)}; the tool call is blocked`)
  let v
  try {
    v = JSON.parse(res.stdout)
  } catch {
    throw new Error(`agent-shell: unreadable answer ${JSON.stringify(res.stdout.slice(0, 200))}; the tool call is blocked`)
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new Error(`agent-shell: unreadable answer ${JSON.stringify(res.stdout.slice(0, 200))}; the tool call is blocked`)
  }
  if (v.decision === "deny") {
    throw new Error(typeof v.reason === "string" && v.reason !== "" ? v.reason : "denied by agent-shell")
  }
  if (v.decision !== "allow") {
    throw new Error(`agent-shell: unknown decision ${JSON.stringify(v.decision)}; the tool call is blocked`)
  }
  if (v.args !== undefined && (v.args === null || typeof v.args !== "object" || Array.isArray(v.args))) {
    throw new Error("agent-shell: rewritten args are not an object; the tool call is blocked")
  }
  return v
}

function remember(callID, args) {
  if (callID === undefined) return
  pending.set(callID, args)
  while (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value)
}

function recordBody(directory, input, args, output) {
  const request = {
    v: PROTOCOL, event: "tool.execute.after", tool: input.tool, sessionID: input.sessionID,
    callID: input.callID, args, result: { title: output?.title, output: output?.output, metadata: output?.metadata },
    cwd: directory,
  }
  let body = JSON.stringify(request)
  if (Buffer.byteLength(body) <= MAX_RECORD_BYTES) return body
  const text = typeof output?.output === "string" ? output.output : ""
  request.result = { title: output?.title, output: text.slice(0, 16384), truncated: true, length: text.length }
  body = JSON.stringify(request)
  if (Buffer.byteLength(body) <= MAX_RECORD_BYTES) return body
  request.args = { truncated: true }
  return JSON.stringify(request)
}

// opencode calls every function a plugin module exports: export only this.
export const AgentShell = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const body = JSON.stringify({
      v: PROTOCOL, event: "tool.execute.before", tool: input.tool, sessionID: input.sessionID,
      callID: input.callID, args: output.args ?? {}, cwd: directory,
    })
    const v = verdict(await run(directory, body))
    if (v.args !== undefined) {
      // In place, in case opencode holds on to the args object itself.
      if (output.args !== null && typeof output.args === "object") Object.assign(output.args, v.args)
      else output.args = { ...v.args }
    }
    remember(input.callID, output.args)
  },
  "tool.execute.after": async (input, output) => {
    const args = input.args ?? pending.get(input.callID)
    pending.delete(input.callID)
    try {
      await run(directory, recordBody(directory, input, args, output))
    } catch {
      // Recording only: the call has run, and failing it now blocks nothing.
    }
  },
})
