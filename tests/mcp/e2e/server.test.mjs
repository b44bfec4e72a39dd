// `safesh mcp` driven by the official MCP TypeScript SDK client (and, for what the SDK will
// not send, by raw lines). Run by tests/mcp/e2e/run.sh under `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, eventually, makeWorkspace, processesWith, rawClient } from './support.mjs';

const RULES = `
[commands]
auto_approve = ["echo *", "printf *", "sleep *", "cat *", "touch *", "exit *", "head *", "tr *"]
deny = ["rm *"]
ask = ["mkdir *"]
`;

async function withClient(settings, capabilities, body) {
  const w = makeWorkspace(settings);
  const client = await connect(w, capabilities);
  try {
    await body(client, w);
  } finally {
    await client.close();
    w.cleanup();
  }
}

test('initialize negotiates the newest version and names the server', async () => {
  await withClient(RULES, {}, async (client) => {
    assert.equal(client.getServerVersion().name, 'safesh');
    assert.ok(client.getServerCapabilities().tools);
    assert.ok(client.getServerCapabilities().logging);
    assert.match(client.getInstructions(), /run_shell_command/);
  });
});

test('older protocol versions are served as asked; unknown ones get the newest', async () => {
  for (const [asked, expected] of [
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-01-01', '2025-11-25'],
  ]) {
    const w = makeWorkspace(RULES);
    const c = rawClient(w);
    c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const r = await c.next();
    assert.equal(r.result.protocolVersion, expected);
    c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    c.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await c.next();
    // Structured output came with 2025-06-18.
    assert.equal('outputSchema' in list.result.tools[0], expected !== '2025-03-26');
    assert.equal(await c.close(), 0);
    w.cleanup();
  }
});

test('a request before initialize is answered with -32601', async () => {
  const w = makeWorkspace(RULES);
  const c = rawClient(w);
  c.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover' });
  const r = await c.next();
  assert.equal(r.id, 'd');
  assert.equal(r.error.code, -32601);
  assert.equal(await c.close(), 0);
  w.cleanup();
});

test('tools/list gives each tool its schemas and annotations', async () => {
  await withClient(RULES, {}, async (client) => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ['check_command', 'manage_background_process', 'run_shell_command']);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.outputSchema.type, 'object');
      assert.ok(t.description.length > 40);
    }
    assert.equal(byName.check_command.annotations.readOnlyHint, true);
    assert.equal(byName.run_shell_command.annotations.readOnlyHint, false);
    assert.ok(byName.run_shell_command.inputSchema.properties.command);
    assert.ok(byName.run_shell_command.inputSchema.properties.timeout_seconds);
  });
});

test('a run returns the output, and the status only when there is one', async () => {
  await withClient(RULES, {}, async (client) => {
    // The SDK checks structuredContent against the outputSchema: a wrong schema fails here.
    let r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'echo hello' } });
    assert.equal(r.isError, false);
    assert.equal(r.content[0].text, 'hello\n');
    assert.equal(r.structuredContent.exit_code, 0);
    assert.deepEqual(JSON.parse(r.content[1].text), r.structuredContent);
    r = await client.callTool({ name: 'run_shell_command', arguments: { command: "printf 'oops\\n' >&2; exit 4" } });
    assert.equal(r.isError, false);
    assert.equal(r.content[0].text, 'oops\nExit code: 4');
    r = await client.callTool({ name: 'run_shell_command', arguments: { argv: ['printf', '%s|', 'a b', '$(id)'] } });
    assert.equal(r.content[0].text, 'a b|$(id)|');
    r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'sleep 20', timeout_seconds: 0.5 } });
    assert.equal(r.content[0].text, '[timed out after 0.5 s]');
    assert.equal(r.structuredContent.timed_out, true);
  });
});

test('the command runs in the sandbox', async () => {
  await withClient(RULES, {}, async (client, w) => {
    // A key in the home folder: hidden inside the sandbox, and readable without it (the attempt
    // is real).
    fs.mkdirSync(path.join(w.home, '.ssh'));
    fs.writeFileSync(path.join(w.home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
    assert.equal(fs.readFileSync(path.join(w.home, '.ssh', 'id_rsa'), 'utf8'), 'PRIVATE KEY\n');
    const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'cat ~/.ssh/id_rsa' } });
    assert.equal(r.structuredContent.sandbox.mode, 'bwrap');
    assert.doesNotMatch(r.content[0].text, /PRIVATE KEY/);
    assert.notEqual(r.structuredContent.exit_code, 0);
    const inside = await client.callTool({ name: 'run_shell_command', arguments: { command: 'touch made' } });
    assert.equal(inside.content[0].text, '');
    assert.ok(fs.existsSync(path.join(w.ws, 'made')));
  });
});

test('a denied command does not run and says why', async () => {
  await withClient(RULES, {}, async (client, w) => {
    fs.writeFileSync(path.join(w.ws, 'keep'), 'x');
    const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'echo hi && rm keep' } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^blocked by command policy: /);
    assert.equal(r.structuredContent.verdict.verdict, 'deny');
    assert.ok(fs.existsSync(path.join(w.ws, 'keep')));
    const check = await client.callTool({ name: 'check_command', arguments: { command: 'rm -rf build' } });
    assert.equal(check.structuredContent.verdict, 'deny');
    assert.deepEqual(check.structuredContent.commands[0].argv, ['rm', '-rf', 'build']);
  });
});

test('an approval is elicited: accept runs the command, decline does not', async () => {
  for (const [answer, runs] of [
    [{ action: 'accept', content: { approve: true } }, true],
    [{ action: 'accept', content: { approve: false } }, false],
    [{ action: 'decline' }, false],
    [{ action: 'cancel' }, false],
  ]) {
    await withClient(RULES, { elicitation: {} }, async (client, w) => {
      let asked = null;
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked = req.params;
        return answer;
      });
      const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'mkdir newdir' } });
      assert.match(asked.message, /mkdir newdir/);
      assert.equal(asked.requestedSchema.properties.approve.type, 'boolean');
      assert.deepEqual(asked.requestedSchema.properties.remember.enum, ['once', 'always']);
      assert.equal(r.isError, !runs, JSON.stringify(r.content));
      assert.equal(fs.existsSync(path.join(w.ws, 'newdir')), runs);
    });
  }
});

test('"always" is remembered for the exact command', async () => {
  await withClient(RULES, { elicitation: {} }, async (client, w) => {
    let asks = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asks += 1;
      return { action: 'accept', content: { approve: true, remember: 'always' } };
    });
    for (let i = 0; i < 2; i++) {
      const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'mkdir -p again' } });
      assert.equal(r.isError, false);
    }
    assert.equal(asks, 1);
    assert.ok(fs.existsSync(path.join(w.ws, 'again')));
  });
});

test('without elicitation the headless answer applies', async () => {
  await withClient(RULES, {}, async (client, w) => {
    const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'mkdir nope' } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /no one could be asked/);
    assert.equal(fs.existsSync(path.join(w.ws, 'nope')), false);
  });
});

test('progress is reported while the command runs', async () => {
  await withClient(RULES, {}, async (client) => {
    const seen = [];
    const r = await client.callTool(
      { name: 'run_shell_command', arguments: { command: 'sleep 1.3' } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    );
    assert.equal(r.isError, false);
    assert.ok(seen.length >= 2, JSON.stringify(seen));
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
  });
});

test('cancelling a call kills its command', async () => {
  await withClient(RULES, {}, async (client) => {
    const marker = 'sleep 61.4242';
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'run_shell_command', arguments: { command: marker } },
      undefined,
      { signal: controller.signal },
    );
    assert.ok(await eventually(() => processesWith(marker).length > 0), 'the command never started');
    controller.abort('the user changed their mind');
    await assert.rejects(call);
    assert.ok(await eventually(() => processesWith(marker).length === 0), 'the command outlived its cancel');
    // The server goes on serving.
    const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'echo after' } });
    assert.equal(r.content[0].text, 'after\n');
  });
});

test('closing stdin ends the server and every command it started', async () => {
  const w = makeWorkspace(RULES);
  const c = rawClient(w);
  c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  await c.next();
  c.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_shell_command', arguments: { command: 'sleep 61.4343' } } });
  assert.ok(await eventually(() => processesWith('sleep 61.4343').length > 0));
  assert.equal(await c.close(), 0);
  assert.ok(await eventually(() => processesWith('sleep 61.4343').length === 0));
  w.cleanup();
});

test('garbage is answered with JSON-RPC errors and serving goes on', async () => {
  const w = makeWorkspace(RULES);
  const c = rawClient(w);
  c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } });
  await c.next();
  const cases = [
    ['{not json', -32700],
    ['[]', -32600],
    ['"a string"', -32600],
    [JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no/such/method' }), -32601],
    [JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope' } }), -32602],
    [JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'logging/setLevel', params: { level: 'shout' } }), -32602],
    ['\u0000\u0001binary\u00ff', -32700],
  ];
  for (const [line, code] of cases) {
    c.send(line);
    const r = await c.next();
    assert.equal(r.error.code, code, line);
  }
  c.send('x'.repeat(9 << 20)); // longer than any message may be
  assert.equal((await c.next()).error.code, -32700);
  c.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'run_shell_command', arguments: { command: 'echo alive' } } });
  const r = await c.next();
  assert.equal(r.id, 9);
  assert.equal(r.result.content[0].text, 'alive\n');
  assert.equal(await c.close(), 0);
  w.cleanup();
});

test('a flood of output stays a small message; the whole of it stays in the spool', async () => {
  const w = makeWorkspace(RULES);
  const c = rawClient(w);
  c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } });
  await c.next();
  // 20 MB of control characters: each one is six bytes once escaped in JSON.
  c.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_shell_command', arguments: { command: "head -c 20000000 /dev/zero | tr '\\0' '\\1'" } } });
  const r = await c.next(60000);
  const size = Buffer.byteLength(JSON.stringify(r));
  assert.ok(size < 2 * 1024 * 1024, `the answer is ${size} bytes`);
  const s = r.result.structuredContent;
  assert.equal(s.truncated, true);
  assert.equal(s.output_bytes, 20000000);
  assert.equal(fs.statSync(s.spool_path).size, 20000000);
  assert.equal(await c.close(), 0);
  w.cleanup();
});

test('a background command: started at once, a notice when it is ready, its output followed, killed', async () => {
  await withClient(RULES, {}, async (client) => {
    const messages = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => messages.push(n.params));
    const marker = 'sleep 61.5151';
    const started = await client.callTool({
      name: 'run_shell_command',
      arguments: {
        command: `printf 'compiling\\n'; sleep 0.3; printf 'ready on port 8123\\n'; ${marker}`,
        background: true,
        notify: true,
        notify_pattern: 'ready on port [0-9]+',
      },
    });
    assert.equal(started.isError, false, started.content[0].text);
    const id = started.structuredContent.background_id;
    assert.match(id, /^bg-\d+$/);
    assert.equal(started.structuredContent.is_background, true);
    assert.match(started.content[0].text, /started in the background/);
    // The pattern's notice arrives as a log message, without any call.
    assert.ok(await eventually(() => messages.some((m) => /ready on port 8123/.test(m.data))), JSON.stringify(messages));
    assert.equal(messages.find((m) => /ready on port/.test(m.data)).level, 'notice');
    // ...and with the next tool result.
    const listed = await client.callTool({ name: 'manage_background_process', arguments: { action: 'list' } });
    assert.equal(listed.structuredContent.processes[0].id, id);
    assert.equal(listed.structuredContent.processes[0].running, true);
    assert.match(listed.content.map((c) => c.text).join('\n'), /\[background notices\][^]*ready on port 8123/);
    // Output, followed from an offset.
    let out = await client.callTool({ name: 'manage_background_process', arguments: { action: 'output', id } });
    assert.equal(out.structuredContent.output, 'compiling\nready on port 8123\n');
    const next = out.structuredContent.next_offset;
    out = await client.callTool({ name: 'manage_background_process', arguments: { action: 'output', id, offset: next } });
    assert.equal(out.structuredContent.output, '');
    assert.equal(processesWith(marker).length, 1);
    const killed = await client.callTool({ name: 'manage_background_process', arguments: { action: 'kill', id } });
    assert.equal(killed.isError, false, killed.content[0].text);
    assert.equal(killed.structuredContent.process.running, false);
    assert.equal(processesWith(marker).length, 0);
    const again = await client.callTool({ name: 'manage_background_process', arguments: { action: 'kill', id: 'bg-99' } });
    assert.equal(again.isError, true);
  });
});

test('closing the client ends its background commands', async () => {
  const w = makeWorkspace(RULES);
  const client = await connect(w);
  const marker = 'sleep 61.6161';
  const r = await client.callTool({ name: 'run_shell_command', arguments: { command: marker, background: true } });
  assert.equal(r.isError, false, r.content[0].text);
  assert.ok(await eventually(() => processesWith(marker).length === 1));
  await client.close();
  assert.ok(await eventually(() => processesWith(marker).length === 0), 'a background command outlived the server');
  w.cleanup();
});

test('a bad notify_pattern is refused before anything starts', async () => {
  await withClient(RULES, {}, async (client, w) => {
    const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'touch started', background: true, notify_pattern: '(' } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /notify_pattern/);
    assert.equal(fs.existsSync(path.join(w.ws, 'started')), false);
  });
});
