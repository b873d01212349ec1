/**
 * The page as a person uses it for long, in Chromium against the local stack on the built-in demo
 * model with the sample notes server (as `npm start` runs them): the frame stays put while a long
 * conversation scrolls, and what the page shows live after a `/sub-task`, a refused completion and
 * an approval is what it shows after a reload: no bubble twice, none missing.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoModel } from '../../../functions/adapters/model/demo-model.js';
import type { LocalStack } from '../../../functions/local/local-stack.js';
import { sampleMcpServers } from '../../../functions/local/sample-mcp/default-servers.js';
import { buildWeb } from '../../../scripts/build-web.mjs';
import {
  describeViolations,
  keepScreenshot,
  launchChromium,
  seriousViolations,
} from '../../support/browser.js';
import { asTask, clientFor, startStack } from '../../support/local-stack.js';
import { textMessage } from '../../support/messages.js';

let stack: LocalStack;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const poll = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 15_000, interval: 100 });

const bubbles = () => page.locator('.messages .message .text').allInnerTexts();
const composer = () => page.getByRole('textbox', { name: 'Message' });

/** Says `text` in the open task and waits for the agent to settle on something new. */
const say = async (text: string) => {
  await composer().fill(text);
  await composer().press('Enter');
};

/** The conversation once the page has settled, then again after a reload: they must agree. */
const expectSameAfterReload = async (live: string[]) => {
  await page.reload();
  await poll(bubbles).toEqual(live);
};

const noRepeats = (texts: readonly string[]) =>
  texts.filter((text, index) => index > 0 && texts[index - 1] === text);

describe('the web page, live and after a reload', () => {
  beforeAll(async () => {
    await buildWeb();
    stack = await startStack({
      model: new DemoModel(),
      webAs: 'you',
      env: {
        TINY_HARNESS_MCP_SERVERS: sampleMcpServers(undefined, {}),
        TINY_HARNESS_THROTTLE_PER_MINUTE: '3000',
        TINY_HARNESS_THROTTLE_BURST: '300',
      },
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);
  afterEach(() => {
    expect(pageErrors.splice(0), 'errors thrown in the page').toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('keeps the header, the task list and the tabs in view while a long conversation scrolls', async () => {
    const you = await clientFor(stack, 'you');
    const send = async (text: string, taskId = '') =>
      asTask(
        await you.sendMessage({
          tenant: '',
          message: { ...textMessage(text), messageId: crypto.randomUUID(), taskId },
          configuration: undefined,
          metadata: undefined,
        })
      );
    const task = await send('message 1');
    for (let n = 2; n <= 25; n++) await send(`message ${n}`, task.id);

    await page.goto(`${stack.url}/#/tasks/${task.id}`);
    await poll(async () => (await bubbles()).length).toBe(50);
    const sizes = () =>
      page.evaluate(() => {
        const messages = document.querySelector('.messages') as HTMLElement;
        const box = (selector: string) =>
          (document.querySelector(selector) as HTMLElement).getBoundingClientRect();
        return {
          document: document.scrollingElement?.scrollHeight ?? 0,
          viewport: window.innerHeight,
          messagesScroll: messages.scrollHeight - messages.clientHeight,
          messagesTop: messages.scrollTop,
          header: box('.top').top,
          tabs: box('[role="tablist"]').top,
          taskList: box('.task-list').top,
          composer: box('.composer').bottom,
        };
      });
    // Opened at the end of the conversation, in a frame that does not move.
    await poll(async () => (await sizes()).messagesTop).toBeGreaterThan(0);
    const opened = await sizes();
    expect(opened.document).toBeLessThanOrEqual(opened.viewport);
    expect(opened.messagesScroll).toBeGreaterThan(0);
    expect(opened.composer).toBeLessThanOrEqual(opened.viewport);
    await page.locator('.messages').evaluate((element) => element.scrollTo(0, 0));
    await page.mouse.wheel(0, 2_000);
    const scrolled = await sizes();
    expect([scrolled.header, scrolled.tabs, scrolled.taskList]).toEqual([
      opened.header,
      opened.tabs,
      opened.taskList,
    ]);
    await expect(page.locator('.top h1').innerText()).resolves.toBe('tiny-harness');
    await keepScreenshot(page, 'long-conversation');
    const violations = await seriousViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  let parent = '';

  it('after /sub-task: the message once, no reply repeated, the child named in its row and in the list', async () => {
    await page.goto(`${stack.url}/#/`);
    await page.getByLabel('Describe a new task').fill('Hi there');
    await page.getByLabel('Describe a new task').press('Enter');
    await page.waitForURL(/#\/tasks\/[0-9a-f-]+$/);
    parent = decodeURIComponent(new URL(page.url()).hash.replace('#/tasks/', ''));
    const reply =
      '(demo model) I received: [you] Hi there\nConfigure a model provider for real answers.';
    await poll(bubbles).toEqual(['Hi there', reply]);

    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    await say('/sub-task Find sources');
    const row = page.locator('.rows li.row');
    await poll(() => row.count()).toBe(1);
    await poll(() => row.locator('a.row-link').innerText()).toBe('Find sources');
    await expect(row.locator('.mark').innerText()).resolves.not.toBe('?');
    await poll(() => page.locator('.tasks .task-title').allInnerTexts()).toContain('Find sources');
    // A second's worth of live updates later, still the same bubbles.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expect(bubbles()).resolves.toEqual(['Hi there', reply, '/sub-task Find sources']);
    await expect(
      page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)
    ).resolves.toBe(true);
  });

  it('keeps the /sub-task message after a reload, where the live page showed it', async () => {
    const live = await bubbles();
    expect(live.at(-1)).toBe('/sub-task Find sources');
    await expectSameAfterReload(live);
  });

  it('a refused completion says why at once, as it does after a reload', async () => {
    await page.goto(`${stack.url}/#/tasks/${parent}`);
    await poll(async () => (await bubbles()).length).toBe(3);
    const before = await bubbles();
    await page.getByRole('button', { name: 'Complete…' }).click();
    await page.getByRole('button', { name: 'Complete the task' }).click();
    await poll(bubbles).toEqual([
      ...before,
      expect.stringMatching(/^completion refused: 1 sub-task\(s\) unresolved: /),
    ]);
    await expect(page.locator('.conversation-head .state').innerText()).resolves.toBe(
      'input-required (awaiting-next-message)'
    );
    await expectSameAfterReload(await bubbles());
  });

  it('an approval: the request, then the answer, each bubble once, as after a reload', async () => {
    await page.goto(`${stack.url}/#/`);
    await page.getByLabel('Describe a new task').fill('note buy milk');
    await page.getByLabel('Describe a new task').press('Enter');
    await page.waitForURL(/#\/tasks\/[0-9a-f-]+$/);
    await poll(async () => (await bubbles()).at(-1)).toMatch(/notes__append_note answered/);
    await say('delete note n1');
    await poll(() => page.locator('.approval').count()).toBe(1);
    await expect(page.locator('.approval .question-text').innerText()).resolves.toMatch(
      /notes__delete_note \{"id":"n1"\}/
    );
    await page.getByRole('button', { name: 'Approve' }).click();
    await poll(async () => (await bubbles()).at(-1)).toMatch(/notes__delete_note answered/);
    await expect(page.locator('.approval').count()).resolves.toBe(0);
    const live = await bubbles();
    expect(live).toHaveLength(4);
    expect(noRepeats(live)).toEqual([]);
    await expectSameAfterReload(live);

    // The trace counts the two calls that ran, the one that waited for approval once.
    await page.getByRole('tab', { name: 'Trace' }).click();
    await poll(() => page.locator('.totals').innerText()).toMatch(/tool calls\s+2\b/);
    await expect(
      page.locator('li.entry[data-kind="tool_call"] .summary').allInnerTexts()
    ).resolves.toEqual([
      expect.stringMatching(/^notes__append_note\(\{"text":"buy milk"\}\) → /),
      expect.stringMatching(/^notes__delete_note\(\{"id":"n1"\}\) → /),
    ]);
    const kinds = await page
      .locator('li.entry[data-kind]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-kind')));
    expect(kinds.filter((kind) => kind?.startsWith('approval_'))).toEqual([
      'approval_requested',
      'approval_granted',
    ]);
    expect(kinds.indexOf('approval_granted')).toBeLessThan(kinds.lastIndexOf('tool_call'));
  });
});
