// One MCP round trip after another: `tools/call` of run_shell_command with `true`, sent by the
// official TypeScript SDK client (@modelcontextprotocol/sdk, as pinned by
// tests/mcp/e2e/package-lock.json) to `safesh mcp` over stdio, timed from the call to its result
// on the client's side. Run by bench/mcp_roundtrip.sh, which gives it a workspace, a home and the
// settings.
//   node mcp_roundtrip.mjs SAFESH CONFIG WORKSPACE HOME SANDBOX_MODE WARMUP CALLS
// SANDBOX_MODE is what every result's structuredContent.sandbox.mode must say ("bwrap", "off").
// Prints one JSON object: the times of the timed calls in milliseconds, with their median, p99
// and mean.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [safesh, config, ws, home, mode, warmup, calls] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: safesh,
  args: ['mcp', '--config', config, '--workspace', ws],
  env: { PATH: '/usr/bin:/bin', HOME: home, LC_ALL: 'C.UTF-8' },
  cwd: ws,
  stderr: 'inherit',
});
const client = new Client({ name: 'safesh-bench', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);

async function call() {
  const r = await client.callTool({ name: 'run_shell_command', arguments: { command: 'true' } });
  const s = r.structuredContent;
  if (r.isError || !s || s.exit_code !== 0 || s.sandbox?.mode !== mode) {
    throw new Error(`wanted exit 0 in sandbox mode ${mode}, got ${JSON.stringify(r)}`);
  }
}

for (let i = 0; i < Number(warmup); i++) await call();
const times = [];
for (let i = 0; i < Number(calls); i++) {
  const start = process.hrtime.bigint();
  await call();
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
await client.close();

const sorted = [...times].sort((a, b) => a - b);
const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]
  : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
console.log(JSON.stringify({
  mode,
  calls: times.length,
  median_ms: median,
  p99_ms: at(0.99),
  mean_ms: times.reduce((a, b) => a + b, 0) / times.length,
  min_ms: sorted[0],
  max_ms: sorted[sorted.length - 1],
  times_ms: times,
}));
