// A stand-in model endpoint on loopback, started inside a probe's network
// namespace (see sandbox.mjs). It records every request body to a log and
// answers with the smallest valid reply, so a program shows what it would
// send a model (its skill and agent listings) without reaching one.
//
// Usage: node fake-endpoint.mjs '{"port":8765,"log":"/…/requests.jsonl","ready":"/…/ready","augmentFlags":{…}}'
//   OpenAI-compatible: POST …/chat/completions (streamed or not), GET …/models.
//   With "toolCalls": [{"name", "arguments"}, …], each request that offers the
//   next listed tool is answered with a call to it, in order (so the program's
//   hooks on those tools run); every other request gets the one-word reply.
//   Augment API: POST /get-models answers with `augmentFlags` as feature flags;
//   POST /chat-stream answers in Augment's stream (one JSON object a line):
//   with "toolCalls", a request that offers the next listed tool (in
//   tool_definitions) gets a tool-use node calling it, otherwise one word.
//   Any other path gets {}.
import http from 'node:http';
import { appendFileSync, writeFileSync } from 'node:fs';

const config = JSON.parse(process.argv[2]);
const toolCalls = [...(config.toolCalls ?? [])];

function json(res, body) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function parseBody(body) {
  try {
    return JSON.parse(body);
  } catch {
    return {}; // not JSON: answer as if nothing was offered
  }
}

/** The next listed tool call when the request offers that tool (then it is used up), else null; numbered from 1. */
function nextToolCall(offeredNames) {
  const call = toolCalls[0];
  if (!call || !offeredNames.includes(call.name)) return null;
  toolCalls.shift();
  return { ...call, number: config.toolCalls.length - toolCalls.length };
}

/**
 * Auggie reads newline-terminated JSON objects { text, nodes, stop_reason }; a
 * tool call is a response node of type 5 whose tool_use carries the tool's
 * name, an id and its input as a JSON string. The result comes back in the
 * next request as a tool_result_node with that id. Background ("silent")
 * requests never get a tool call.
 */
function augmentChatStream(res, request) {
  const call = request.silent ? null : nextToolCall((request.tool_definitions ?? []).map((tool) => tool.name));
  res.writeHead(200, { 'content-type': 'application/json' });
  if (call) {
    const node = { id: 1, type: 5, tool_use: { tool_use_id: `toolu_stub_${call.number}`, tool_name: call.name, input_json: call.arguments } };
    res.end(`${JSON.stringify({ text: '', nodes: [node], stop_reason: 'TOOL_USE_REQUESTED' })}\n`);
    return;
  }
  res.end(`${JSON.stringify({ text: 'ok', stop_reason: 'END_TURN' })}\n`);
}

/** An OpenAI chat completion: a tool call when one is due, else "ok"; streamed as two chunks when asked. */
function chatCompletion(res, request) {
  const call = nextToolCall((request.tools ?? []).map((tool) => tool.function?.name));
  const message = call
    ? { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_stub_${call.number}`, type: 'function', function: { name: call.name, arguments: call.arguments } }] }
    : { role: 'assistant', content: 'ok' };
  const finish = call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const envelope = { id: 'stub', created: 0, model: 'dummy' };
  if (request.stream !== true) {
    json(res, { ...envelope, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (choice, extra = {}) => res.write(`data: ${JSON.stringify({ ...envelope, object: 'chat.completion.chunk', choices: [choice], ...extra })}\n\n`);
  chunk({ index: 0, delta: message, finish_reason: null });
  chunk({ index: 0, delta: {}, finish_reason: finish }, { usage });
  res.end('data: [DONE]\n\n');
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    appendFileSync(config.log, `${JSON.stringify({ method: req.method, url: req.url, body })}\n`);
    const url = req.url ?? '';
    if (url.endsWith('/get-models')) json(res, { default_model: 'dummy', models: [], languages: [], feature_flags: config.augmentFlags ?? {} });
    else if (url.endsWith('/chat-stream')) augmentChatStream(res, parseBody(body));
    else if (url.endsWith('/models')) json(res, { object: 'list', data: [{ id: 'dummy', object: 'model', created: 0, owned_by: 'local' }] });
    else if (url.endsWith('/chat/completions')) chatCompletion(res, parseBody(body));
    else json(res, {});
  });
});

server.listen(config.port, '127.0.0.1', () => writeFileSync(config.ready, 'ready'));
