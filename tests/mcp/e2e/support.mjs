// Helpers of the end-to-end tests: a workspace with its own home and settings, the official
// SDK client connected to `safesh mcp` over stdio, a raw line-by-line client for what the SDK
// will not send, and looks into /proc.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const SAFESH = process.env.SAFESH_BINARY;
if (!SAFESH) throw new Error('SAFESH_BINARY must name the safesh program to test');

// A fresh folder with a workspace, a home (never the real one) and a settings file holding
// `settings` (TOML). Removed by cleanup().
export function makeWorkspace(settings) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'safesh-mcp-e2e-'));
  const ws = path.join(dir, 'ws');
  const home = path.join(dir, 'home');
  fs.mkdirSync(ws);
  fs.mkdirSync(home);
  const config = path.join(dir, 'settings.toml');
  fs.writeFileSync(config, settings);
  // safesh's state (remembered approvals, the audit log) outside every folder a command may
  // write (/tmp is one): safesh does not trust approvals a command could have written.
  const state = fs.mkdtempSync(fs.existsSync('/dev/shm') ? '/dev/shm/safesh-mcp-e2e-' : path.join(process.cwd(), 'state-'));
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: home,
    LC_ALL: 'C.UTF-8',
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: state,
  };
  return {
    dir,
    ws,
    home,
    config,
    env,
    args: ['mcp', '--config', config, '--workspace', ws],
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(state, { recursive: true, force: true });
    },
  };
}

// The SDK client, connected. `capabilities` are the client's (e.g. { elicitation: {} }).
export async function connect(w, capabilities = {}) {
  const transport = new StdioClientTransport({
    command: SAFESH,
    args: w.args,
    env: w.env,
    cwd: w.ws,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'safesh-e2e', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return client;
}

// A client that speaks raw lines: send(obj or string), next() resolves with the next parsed
// message, close() ends stdin and resolves with the exit code.
export function rawClient(w) {
  const child = spawn(SAFESH, w.args, { env: w.env, cwd: w.ws, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = readline.createInterface({ input: child.stdout });
  const queue = [];
  const waiters = [];
  lines.on('line', (line) => {
    const msg = JSON.parse(line); // every line the server writes must be JSON
    if (waiters.length > 0) waiters.shift()(msg);
    else queue.push(msg);
  });
  child.stderr.resume();
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    send(m) {
      child.stdin.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n');
    },
    next(ms = 10000) {
      if (queue.length > 0) return Promise.resolve(queue.shift());
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no message from the server')), ms);
        waiters.push((m) => {
          clearTimeout(t);
          resolve(m);
        });
      });
    },
    close() {
      child.stdin.end();
      return exited;
    },
  };
}

// Live processes whose command line is exactly `marker` (its words joined by spaces).
export function processesWith(marker) {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').filter(Boolean);
      if (cmd.join(' ') !== marker) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Waits up to `ms` for `check()` to be true.
export async function eventually(check, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(25);
  }
  return false;
}
