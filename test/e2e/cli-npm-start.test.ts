/**
 * `npm start` and `npx tiny-harness` in terminals, as a person runs them: an interactive shell
 * (its own process group per command, so Ctrl-C reaches the stack as a terminal sends it), a
 * chat left open across a restart, a wrong token, and a reader that stops reading.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../faults/stack-process.js';
import { BIN, ROOT } from '../support/cli.js';
import { temporaryDir } from '../support/local-stack.js';
import { Terminal } from '../support/tmux.js';

const UP = /Ctrl-C stops everything\./g;
const ERROR_LINE = /"level":"error"/;

describe('npm start and tiny-harness in terminals', () => {
  const data = temporaryDir();
  const terminals: Terminal[] = [];
  const env = {
    TINY_HARNESS_DATA_DIR: data.dir,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  /** An interactive bash: each command a job of its own, as in a person's terminal. */
  const shell = (name: string) => {
    const opened = new Terminal({
      name,
      cwd: ROOT,
      command: ['bash', '--norc', '--noprofile', '-i'],
      env: { ...env, PS1: '$ ' },
      width: 220,
    });
    terminals.push(opened);
    return opened;
  };
  const upCount = (terminal: Terminal) => terminal.screen().match(UP)?.length ?? 0;
  const stoppingCount = (terminal: Terminal) =>
    terminal.screen().match(/tiny-harness: stopping…/g)?.length ?? 0;
  /**
   * Ctrl-C, then the prompt back: the stack said it was stopping (a new line each time: one killed
   * before it could say so, as a wrapper's SIGKILL under load did, leaves none) and has stopped.
   */
  const stop = async (terminal: Terminal) => {
    const before = stoppingCount(terminal);
    terminal.key('C-c');
    await terminal.waitFor(/tiny-harness: stopping…\n(?:.*\n)*\$\n$/, 60_000);
    expect(stoppingCount(terminal)).toBe(before + 1);
  };
  let server: Terminal;
  let port = 0;

  afterAll(() => {
    for (const opened of terminals) opened.close();
    data.remove();
  });

  it('keeps the token across a restart: a chat left open goes on; each Ctrl-C stops the stack without an error line', async () => {
    port = await freePort();
    server = shell('server');
    server.type(`npm start -- --port ${port}`);
    await server.waitFor(UP, 180_000);

    const chat = new Terminal({
      name: 'chat',
      cwd: ROOT,
      command: [process.execPath, BIN, 'chat'],
      env,
    });
    terminals.push(chat);
    await chat.waitFor(/you ›\s*$/);
    chat.type('hello');
    await chat.waitFor(/agent › [\s\S]*you ›\s*$/);

    await stop(server);
    server.type(`npm start -- --port ${port}`);
    await server.waitFor(/tiny-harness: stopping…[\s\S]*Ctrl-C stops everything\./, 180_000);
    expect(upCount(server)).toBe(2);

    chat.type('still there?');
    const screen = await chat.waitFor(
      /you › still there\?\n[\s\S]*agent › [\s\S]*you ›\s*$/,
      90_000
    );
    expect(screen).not.toMatch(/401 Unauthorized|unexpected error/i);

    await stop(server);
    expect(server.screen()).not.toMatch(ERROR_LINE);
    server.type(`npm start -- --port ${port}`);
    await server.waitFor(/stopping…[\s\S]*stopping…[\s\S]*Ctrl-C stops everything\./, 180_000);
  }, 600_000);

  it('says a refused token is a 401 with what to do, exits 1, and ends quietly when its reader stops reading', async () => {
    const user = shell('user');
    user.type(`npx tiny-harness chat --token wrong; echo "[chat exited $?]"`);
    await user.waitFor(/you ›\s*$/);
    user.type('hello');
    let screen = await user.waitFor(/\[chat exited \d+\]/);
    expect(screen).toContain('tiny-harness: 401 Unauthorized: the agent at http://127.0.0.1:');
    expect(screen).toContain('refused the bearer token from --token');
    expect(screen).toContain('[chat exited 1]');

    // `head -n 0` reads nothing: every line the command writes meets a closed pipe.
    user.type(`npx tiny-harness tasks | head -n 0; echo "[tasks exited \${PIPESTATUS[0]}]"`);
    screen = await user.waitFor(/\[tasks exited \d+\]/);
    expect(screen).toContain('[tasks exited 0]');
    expect(screen).not.toMatch(/EPIPE|Error/);
    user.type(`npx tiny-harness tasks | head -1`);
    await user.waitFor(/input-required/);

    await stop(server);
    expect(server.screen()).not.toMatch(ERROR_LINE);
  }, 120_000);
});
