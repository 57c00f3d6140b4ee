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

/**
 * Auggie reads newline-terminated JSON objects { text, nodes, stop_reason }; a
 * tool call is a response node of type 5 whose tool_use carries the tool's
 * name, an id and its input as a JSON string. The result comes back in the
 * next request as a tool_result_node with that id.
 */
function augmentChatStream(res, body) {
  let request = {};
  try {
    request = JSON.parse(body);
  } catch {
    /* not JSON */
  }
  const call = toolCalls[0];
  const offered = !request.silent && (request.tool_definitions ?? []).some((tool) => tool.name === call?.name);
  res.writeHead(200, { 'content-type': 'application/json' });
  if (call && offered) {
    toolCalls.shift();
    const id = `toolu_stub_${config.toolCalls.length - toolCalls.length}`;
    const node = { id: 1, type: 5, tool_use: { tool_use_id: id, tool_name: call.name, input_json: call.arguments } };
    res.end(`${JSON.stringify({ text: '', nodes: [node], stop_reason: 'TOOL_USE_REQUESTED' })}\n`);
    return;
  }
  res.end(`${JSON.stringify({ text: 'ok', stop_reason: 'END_TURN' })}\n`);
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    appendFileSync(config.log, `${JSON.stringify({ method: req.method, url: req.url, body })}\n`);
    const url = req.url ?? '';
    if (url.endsWith('/get-models')) {
      json(res, { default_model: 'dummy', models: [], languages: [], feature_flags: config.augmentFlags ?? {} });
      return;
    }
    if (url.endsWith('/chat-stream')) {
      augmentChatStream(res, body);
      return;
    }
    if (url.endsWith('/models')) {
      json(res, { object: 'list', data: [{ id: 'dummy', object: 'model', created: 0, owned_by: 'local' }] });
      return;
    }
    if (url.endsWith('/chat/completions')) {
      let request = {};
      try {
        request = JSON.parse(body);
      } catch {
        /* not JSON */
      }
      const stream = request.stream === true;
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
      const call = toolCalls[0];
      if (call && (request.tools ?? []).some((tool) => tool.function?.name === call.name)) {
        toolCalls.shift();
        const id = `call_stub_${(config.toolCalls.length - toolCalls.length)}`;
        const calls = [{ index: 0, id, type: 'function', function: { name: call.name, arguments: call.arguments } }];
        if (!stream) {
          json(res, {
            id: 'stub',
            object: 'chat.completion',
            created: 0,
            model: 'dummy',
            choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: calls }, finish_reason: 'tool_calls' }],
            usage,
          });
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const write = (choice, extra = {}) =>
          res.write(`data: ${JSON.stringify({ id: 'stub', object: 'chat.completion.chunk', created: 0, model: 'dummy', choices: [choice], ...extra })}\n\n`);
        write({ index: 0, delta: { role: 'assistant', content: null, tool_calls: calls }, finish_reason: null });
        write({ index: 0, delta: {}, finish_reason: 'tool_calls' }, { usage });
        res.end('data: [DONE]\n\n');
        return;
      }
      if (!stream) {
        json(res, {
          id: 'stub',
          object: 'chat.completion',
          created: 0,
          model: 'dummy',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage,
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (choice, extra = {}) =>
        res.write(`data: ${JSON.stringify({ id: 'stub', object: 'chat.completion.chunk', created: 0, model: 'dummy', choices: [choice], ...extra })}\n\n`);
      chunk({ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null });
      chunk({ index: 0, delta: {}, finish_reason: 'stop' }, { usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    json(res, {});
  });
});

server.listen(config.port, '127.0.0.1', () => writeFileSync(config.ready, 'ready'));
