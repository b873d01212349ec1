/**
 * The web renderer in a real browser (Debian's Chromium, headless) against the local stack with a
 * scripted model: the scenarios of issue 14, each pane checked by axe, screenshots of each pane
 * kept in test-artifacts/web/. One stack and one browser for those scenarios; they run in order
 * (the model plays one script per task, in the order the tasks first call it). A task stopped at
 * its budget has a stack (a deployment with a default budget) and a browser of its own, and runs
 * first: the scenarios leave tasks open, and the streams that followed them read their closed
 * stack's store for a while after it closes, which logs errors in whatever runs next.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../functions/core/testing/scripted-model.js';
import type { LocalStack } from '../../../functions/local/local-stack.js';
import { buildWeb } from '../../../scripts/build-web.mjs';
import {
  describeViolations,
  keepScreenshot,
  launchChromium,
  seriousViolations,
} from '../../support/browser.js';
import { startStack } from '../../support/local-stack.js';
import { PerTaskModel } from '../../support/per-task-model.js';

/** A promise the test settles when it wants the scripted model to go on. */
const hold = () => {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    release = done;
  });
  return { promise, release };
};

const planHolds = [hold(), hold(), hold()] as const;
const childGate = hold();

const model = new PerTaskModel([
  // 1. A conversation.
  { replies: [{ text: 'Hello! What shall we write?' }, { text: 'A haiku it is.' }] },
  // 2. A plan that fills in step by step.
  {
    replies: [
      {
        toolCalls: [
          {
            name: 'create_plan',
            arguments: {
              steps: [
                { name: 'Outline', description: 'the parts' },
                { name: 'Draft', description: 'write it', depends_on: ['Outline'] },
                { name: 'Sources', description: 'find them' },
                { name: 'Review', description: 'check it', depends_on: ['Draft', 'Sources'] },
              ],
            },
          },
        ],
      },
      {
        toolCalls: [
          { name: 'complete_step', arguments: { step: 'Outline', output: 'three parts' } },
        ],
      },
      {
        toolCalls: [
          { name: 'complete_step', arguments: { step: 'Draft', output: 'a first draft' } },
        ],
      },
      { text: 'The draft is ready.' },
    ],
    holds: { 1: planHolds[0].promise, 2: planHolds[1].promise, 3: planHolds[2].promise },
  },
  // 3. A parent with a sub-task, and 4. the sub-task itself.
  {
    replies: [
      {
        toolCalls: [
          { name: 'spawn_subtask', arguments: { name: 'Research', goal: 'Find three sources' } },
        ],
      },
      { text: 'A sub-task is looking for sources.' },
      { text: 'The sources are in.' },
    ],
  },
  { replies: [{ text: 'Three sources found.' }], gate: childGate.promise },
  // 5. A question answered through its options.
  {
    replies: [
      {
        toolCalls: [
          {
            name: 'ask_participant',
            arguments: { participant_id: 'you', question: 'Which format?', options: ['pdf', 'md'] },
          },
        ],
      },
      { text: 'Markdown it is.' },
    ],
  },
  // 6. A fork of the conversation, from its second message, with a first message of its own.
  { replies: [{ text: 'A limerick it is.' }] },
]);

let stack: LocalStack;
const pageErrors: string[] = [];
let browser: Browser;
let page: Page;
const tasks: Record<'chat' | 'plan' | 'parent' | 'question', string> = {
  chat: '',
  plan: '',
  parent: '',
  question: '',
};

/** The page catches up within a few seconds: poll what it shows until then. */
const poll = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 15_000, interval: 100 });

const expectAccessible = async (name: string, selector = 'body') => {
  const violations = await seriousViolations(page, selector);
  expect(violations, `${name}:\n${describeViolations(violations)}`).toEqual([]);
};

/** Starts a task from the New task page; returns its id (from the address the page goes to). */
const startTask = async (text: string): Promise<string> => {
  await page.goto(`${stack.url}/#/`);
  const composer = page.getByLabel('Describe a new task');
  await composer.fill(text);
  await composer.press('Enter');
  await page.waitForURL(/#\/tasks\/[0-9a-f-]+$/);
  return decodeURIComponent(new URL(page.url()).hash.replace('#/tasks/', ''));
};

const openPane = async (name: 'Task' | 'Plan' | 'Trace') => {
  await page.getByRole('tab', { name }).click();
  await poll(() => page.getByRole('tab', { name }).getAttribute('aria-selected')).toBe('true');
};

const messages = () => page.locator('.messages .message .text').allInnerTexts();

/**
 * A deployment whose tasks may make one model call each (TINY_HARNESS_DEFAULT_BUDGET), on a stack
 * and a browser of its own: the task pane says what was spent, a task stopped at its budget shows
 * why with a field per limit, and a higher limit set there lets the turn go on.
 */
describe('a task stopped at its budget, in Chromium', () => {
  const budgetModel = new ScriptedModel([
    { text: 'The first answer.' },
    { text: 'The second answer.' },
  ]);
  let budgetStack: LocalStack;
  let budgetBrowser: Browser;
  let budgetPage: Page;
  const errors: string[] = [];
  const said = () => budgetPage.locator('.messages .message .text').allInnerTexts();
  const budgetLine = () =>
    budgetPage
      .locator('.task-pane .budget')
      .innerText()
      .catch(() => '');

  beforeAll(async () => {
    await buildWeb();
    budgetStack = await startStack({
      model: budgetModel,
      webAs: 'you',
      env: {
        TINY_HARNESS_DEFAULT_BUDGET: JSON.stringify({ '*': { model_calls: 1 } }),
        TINY_HARNESS_THROTTLE_PER_MINUTE: '3000',
        TINY_HARNESS_THROTTLE_BURST: '300',
      },
    });
    budgetBrowser = await launchChromium();
    budgetPage = await budgetBrowser.newPage({ viewport: { width: 1400, height: 900 } });
    budgetPage.on('pageerror', (error) => errors.push(error.message));
  }, 120_000);
  afterEach(() => {
    expect(errors.splice(0), 'errors thrown in the page').toEqual([]);
  });
  afterAll(async () => {
    await budgetBrowser?.close();
    await budgetStack?.close();
  });

  it('shows the spend and the stop, and a higher limit set in the panel lets the task go on', async () => {
    await budgetPage.goto(`${budgetStack.url}/#/`);
    const newTask = budgetPage.getByLabel('Describe a new task');
    await newTask.fill('Say two things');
    await newTask.press('Enter');
    await budgetPage.waitForURL(/#\/tasks\/[0-9a-f-]+$/);
    await poll(said).toEqual(['Say two things', 'The first answer.']);
    await budgetPage.getByRole('tab', { name: 'Task' }).click();
    await poll(budgetLine).toMatch(/^model calls \d+ of 1$/);

    const composer = budgetPage.getByRole('textbox', { name: 'Message' });
    await composer.fill('and the second?');
    await composer.press('Enter');
    const stop = budgetPage.locator('.budget-stop');
    await poll(() => stop.count()).toBe(1);
    await expect(budgetPage.locator('.conversation-head .state').innerText()).resolves.toBe(
      'input-required (awaiting-budget)'
    );
    expect(budgetModel.requests).toHaveLength(1);
    // The page shows a change of spend alone when it reads the task again (a reload does).
    await budgetPage.reload();
    await poll(budgetLine).toBe('model calls 1 of 1');
    await poll(() => stop.count()).toBe(1);
    await expect(stop.getByRole('heading').innerText()).resolves.toBe('Stopped at its budget');
    await expect(stop.locator('.question-text').innerText()).resolves.toMatch(
      /^The budget is reached: the next model call could exceed it, so it was not made\.\n- model calls: spent 1 of 1;/
    );
    // Each field starts from the budget as it is: only model calls is set.
    await expect(stop.getByLabel('Model calls').inputValue()).resolves.toBe('1');
    await expect(stop.getByLabel('Cost (USD)').inputValue()).resolves.toBe('');
    await keepScreenshot(budgetPage, 'budget-stop');
    const violations = await seriousViolations(budgetPage, '.budget-stop');
    expect(violations, describeViolations(violations)).toEqual([]);

    await stop.getByLabel('Model calls').fill('2');
    await stop.getByRole('button', { name: 'Set budget' }).click();
    await poll(said).toEqual([
      'Say two things',
      'The first answer.',
      'and the second?',
      'The second answer.',
    ]);
    await poll(() => stop.count()).toBe(0);
    await poll(() => budgetPage.locator('.conversation-head .state').innerText()).toBe(
      'input-required (awaiting-next-message)'
    );
    await poll(budgetLine).toMatch(/^model calls \d+ of 2$/);
    expect(budgetModel.requests).toHaveLength(2);
    await budgetPage.reload();
    await poll(budgetLine).toBe('model calls 2 of 2');

    // Ended, the task ends the streams that follow it (those of the pages before each reload
    // too): left open, they would still read the store while the stack closes.
    await budgetPage.getByRole('button', { name: 'Complete…' }).click();
    await budgetPage.getByRole('button', { name: 'Complete the task' }).click();
    await poll(() => budgetPage.locator('.conversation-head .state').innerText()).toBe('completed');
  });
});

describe('the web renderer in Chromium, against the local stack', () => {
  beforeAll(async () => {
    await buildWeb();
    stack = await startStack({
      model,
      webAs: 'you',
      env: {
        TINY_HARNESS_MODEL_PRICES: '{"scripted":{"input":1,"cachedInput":0.1,"output":2}}',
        // This "user" takes a turn a second, for a minute, with one token: far past the local
        // throttle a person meets (120 a minute). The page copes with 429s (it waits as told), but
        // the scenarios would spend their time waiting.
        TINY_HARNESS_THROTTLE_PER_MINUTE: '3000',
        TINY_HARNESS_THROTTLE_BURST: '300',
      },
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);
  afterEach(() => {
    expect(pageErrors.splice(0), 'errors thrown in the page').toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('holds a conversation: the first message starts a task, each reply shows as it comes', async () => {
    tasks.chat = await startTask('Hi there');
    await poll(messages).toEqual(['Hi there', 'Hello! What shall we write?']);
    await poll(() => page.locator('.conversation-head .state').innerText()).toBe(
      'input-required (awaiting-next-message)'
    );
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('A haiku, please');
    await composer.press('Enter');
    await poll(messages).toEqual([
      'Hi there',
      'Hello! What shall we write?',
      'A haiku, please',
      'A haiku it is.',
    ]);
    // The identity in use is said, and the task is in the list.
    await expect(page.locator('.composer .identity').innerText()).resolves.toBe('as you');
    await expect(
      page.locator('.tasks a[aria-current="page"] .task-title').innerText()
    ).resolves.toBe('Hi there');
    await keepScreenshot(page, 'conversation');
    await expectAccessible('the conversation');
  });

  it('fills the plan in step by step as the agent works, with no reload', async () => {
    tasks.plan = await startTask('Write an essay on tides');
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    await openPane('Plan');
    const steps = page.locator('ol.steps li.step');
    await poll(() => steps.count()).toBe(4);
    await expect(page.getByRole('heading', { name: 'Plan · 4 steps · DAG' }).count()).resolves.toBe(
      1
    );
    await poll(() => page.locator('li.step.pending').count()).toBe(4);
    // The graph: a box per step, an arrow per dependency.
    await poll(() => page.locator('.plan-graph g.node').count()).toBe(4);
    await expect(page.locator('.plan-graph path.edge').count()).resolves.toBe(3);
    await expect(
      page.locator('li.step[data-step="review"] .step-detail').innerText()
    ).resolves.toBe('depends on Draft, Sources');
    // The model is held: the agent is working, and the page says so.
    await expect(page.locator('.progress').innerText()).resolves.toMatch(/^Working · \d+ s/);
    await keepScreenshot(page, 'plan-pending');
    await expectAccessible('the plan pane', '.panes');

    planHolds[0].release();
    await poll(() => page.locator('li.step.done').count()).toBe(1);
    await expect(page.locator('li.step.done .output').innerText()).resolves.toBe(
      'output: three parts'
    );
    await expect(page.locator('.plan-graph g.node.done').getAttribute('data-step')).resolves.toBe(
      'outline'
    );

    planHolds[1].release();
    await poll(() => page.locator('li.step.done').count()).toBe(2);
    await poll(() =>
      page
        .locator('li.step.done')
        .evaluateAll((items) => items.map((i) => i.getAttribute('data-step')))
    ).toEqual(['outline', 'draft']);
    await expect(page.locator('li.step.pending').count()).resolves.toBe(2);

    planHolds[2].release();
    await poll(messages).toContain('The draft is ready.');
    await expect(page.locator('.progress').count()).resolves.toBe(0);
    await expect(
      page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)
    ).resolves.toBe(true);
    await keepScreenshot(page, 'plan');
    await expectAccessible('the plan pane, filled in', '.panes');
  });

  it('shows a sub-task row whose state changes live, and opens the sub-task as its own task', async () => {
    tasks.parent = await startTask('Write a report');
    await openPane('Task');
    const row = page.locator('.rows li.row');
    await poll(() => row.count()).toBe(1);
    // The child waits on the test: it is submitted or working, not done.
    await expect(row.getAttribute('data-state')).resolves.toMatch(
      /^TASK_STATE_(SUBMITTED|WORKING)$/
    );
    await keepScreenshot(page, 'task-sub-task-working');
    await expectAccessible('the task pane', '.panes');

    childGate.release();
    await poll(() => row.getAttribute('data-state')).toBe('TASK_STATE_COMPLETED');
    await expect(row.locator('.state').innerText()).resolves.toBe('completed');
    await poll(messages).toContain('The sources are in.');
    await keepScreenshot(page, 'task');

    // The row names the child (read from the child itself), and keeps its id.
    await poll(() => row.locator('a.row-link').innerText()).toBe('Research');
    const childId = (await row.getAttribute('data-task-id')) ?? '';
    await row.locator('a.row-link').click();
    await page.waitForURL(new RegExp(`#/tasks/${childId}$`));
    await poll(() => page.locator('.conversation-head h2').innerText()).toBe('Research');
    await expect(page.locator('.task-pane .goal').innerText()).resolves.toBe('Find three sources');
    await expect(page.getByRole('link', { name: tasks.parent }).count()).resolves.toBe(1);
  });

  it('answers a pending question through its options', async () => {
    tasks.question = await startTask('Export my notes');
    const question = page.locator('.question');
    await poll(() =>
      question
        .locator('.question-text')
        .innerText()
        .catch(() => '')
    ).toBe('Which format?');
    await expect(question.getByRole('button').allInnerTexts()).resolves.toEqual(['pdf', 'md']);
    await keepScreenshot(page, 'question');
    await expectAccessible('a question');
    await question.getByRole('button', { name: 'md' }).click();
    // The history holds the answer as the harness framed it for the model.
    await poll(messages).toEqual([
      'Export my notes',
      'Reply from you to "Which format?": md',
      'Markdown it is.',
    ]);
    await expect(page.locator('.question').count()).resolves.toBe(0);
  });

  it('forks a conversation at a message: the fork keeps the history through it and says where it came from', async () => {
    await page.goto(`${stack.url}/#/tasks/${tasks.chat}`);
    const said = ['Hi there', 'Hello! What shall we write?', 'A haiku, please', 'A haiku it is.'];
    await poll(messages).toEqual(said);
    const second = page.locator('.messages li.message').nth(1);
    await second.getByRole('button', { name: /^Fork from here/ }).click();
    const form = page.getByRole('form', { name: 'Fork from message 2, from agent' });
    await form.getByLabel('First message of the fork (optional)').fill('A limerick instead');
    await form.getByLabel('Name (optional)').fill('Limerick');
    await keepScreenshot(page, 'fork-form');
    await expectAccessible('the fork form', '.fork-form');
    await form.getByRole('button', { name: 'Fork' }).click();
    await page.waitForURL(
      (url) => /^#\/tasks\/[0-9a-f-]+$/.test(url.hash) && !url.hash.endsWith(tasks.chat)
    );
    const forkId = decodeURIComponent(new URL(page.url()).hash.replace('#/tasks/', ''));
    await poll(() => page.locator('.conversation-head h2').innerText()).toBe('Limerick');
    await poll(messages).toEqual([
      'Hi there',
      'Hello! What shall we write?',
      'A limerick instead',
      'A limerick it is.',
    ]);
    const origin = page.locator('.conversation .lineage');
    await poll(() => origin.innerText()).toBe(
      'Forked from Hi there at “Hello! What shall we write?”'
    );
    await expect(
      page.locator('.tasks a[aria-current="page"] .task-title').innerText()
    ).resolves.toBe('Limerick');
    await keepScreenshot(page, 'fork');
    await expectAccessible('a fork');

    // The original is as it was, and lists its fork.
    await origin.getByRole('link', { name: 'Hi there' }).click();
    await page.waitForURL(new RegExp(`#/tasks/${tasks.chat}$`));
    await poll(messages).toEqual(said);
    await openPane('Task');
    await poll(() => page.locator('.task-pane .forks a').allInnerTexts()).toEqual(['Limerick']);
    await expect(page.locator('.task-pane .forks li').getAttribute('data-task-id')).resolves.toBe(
      forkId
    );
  });

  it('shows the panes as they were at a message, marked apart from the live task, and back to live', async () => {
    await page.goto(`${stack.url}/#/tasks/${tasks.plan}`);
    await poll(messages).toContain('The draft is ready.');
    await openPane('Plan');
    await poll(() => page.locator('li.step.done').count()).toBe(2);
    await page
      .locator('.messages li.message')
      .first()
      .getByRole('link', { name: /^As it was here/ })
      .click();
    await page.waitForURL(new RegExp(`#/tasks/${tasks.plan}/at/`));
    const panes = page.locator('aside.panes.past');
    await poll(() =>
      panes
        .locator('.past-view')
        .innerText()
        .catch(() => '')
    ).toContain('As it was at “Write an essay on tides”');
    // The plan came after the first message.
    await poll(() => panes.getByText('The agent has not made a plan for this task.').count()).toBe(
      1
    );
    await expect(page.locator('.messages li.message.at .text').innerText()).resolves.toBe(
      'Write an essay on tides'
    );
    await expect(page.locator('.messages li.message.later').count()).resolves.toBeGreaterThan(0);
    await keepScreenshot(page, 'past-view');
    await expectAccessible('the panes as they were', '.panes');

    await panes.getByRole('link', { name: 'Back to live' }).click();
    await page.waitForURL(new RegExp(`#/tasks/${tasks.plan}$`));
    await poll(() => page.locator('aside.panes.past').count()).toBe(0);
    await poll(() => page.locator('li.step.done').count()).toBe(2);
  });

  it('completes a task through the control envelope, and lists it among the completed', async () => {
    await page.goto(`${stack.url}/#/tasks/${tasks.chat}`);
    await poll(messages).toContain('A haiku it is.');
    await page.getByRole('button', { name: 'Complete…' }).click();
    await page.getByLabel('Why is it complete? (optional)').fill('all good');
    await page.getByRole('button', { name: 'Complete the task' }).click();
    await poll(() => page.locator('.conversation-head .state').innerText()).toBe('completed');
    await poll(messages).toContain('Task completed: all good');
    await expect(page.locator('.composer.ended').innerText()).resolves.toContain(
      'This task has ended (completed)'
    );
    await page.getByLabel('State').selectOption('completed');
    await poll(() => page.locator('.tasks .task-title').allInnerTexts()).toContain('Hi there');
    await poll(async () => [
      ...new Set(await page.locator('.tasks .state').allInnerTexts()),
    ]).toEqual(['completed']);
    await page.getByLabel('State').selectOption('');
  });

  it('lists the model and tool calls in the trace, with the cost of the tree, filterable by kind', async () => {
    await page.goto(`${stack.url}/#/tasks/${tasks.plan}`);
    await openPane('Trace');
    const entries = page.locator('ol.entries li.entry');
    await poll(() =>
      entries
        .locator('[data-kind]')
        .count()
        .then(() => entries.count())
    ).toBeGreaterThan(5);
    const kinds = await entries.evaluateAll((items) =>
      items.map((i) => i.getAttribute('data-kind'))
    );
    expect(kinds.filter((kind) => kind === 'model_call')).toHaveLength(4);
    const tools = await page.locator('li.entry[data-kind="tool_call"] .summary').allInnerTexts();
    expect(tools.map((summary) => summary.split('(')[0])).toEqual([
      'create_plan',
      'complete_step',
      'complete_step',
    ]);
    // Four scripted calls of 100 tokens in and 10 out at $1 and $2 per million.
    const totals = page.locator('.totals');
    await expect(totals.innerText()).resolves.toMatch(/model calls\s+4/);
    await expect(totals.innerText()).resolves.toMatch(/tokens in\s+400/);
    await expect(totals.locator('.cost').innerText()).resolves.toBe('$0.000480');
    await keepScreenshot(page, 'trace');
    await expectAccessible('the trace pane', '.panes');

    await page.getByRole('checkbox', { name: 'model call' }).uncheck();
    await poll(() => page.locator('li.entry[data-kind="model_call"]').count()).toBe(0);
    await expect(page.locator('li.entry[data-kind="tool_call"]').count()).resolves.toBe(3);
  });

  it('works at 360 px wide: nothing scrolls sideways, and each pane passes axe', async () => {
    const narrow = await browser.newPage({ viewport: { width: 360, height: 740 } });
    const previous = page;
    page = narrow;
    try {
      await page.goto(`${stack.url}/#/tasks/${tasks.plan}`);
      await poll(messages).toContain('The draft is ready.');
      for (const pane of ['Task', 'Plan', 'Trace'] as const) {
        await openPane(pane);
        if (pane === 'Trace') await poll(() => page.locator('li.entry').count()).toBeGreaterThan(0);
        if (pane === 'Plan') await poll(() => page.locator('.plan-graph g.node').count()).toBe(4);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width, `the ${pane} pane scrolls sideways`).toBeLessThanOrEqual(360);
        await keepScreenshot(page, `narrow-${pane.toLowerCase()}`);
        await expectAccessible(`the ${pane} pane at 360 px`);
      }
    } finally {
      page = previous;
      await narrow.close();
    }
  });

  it('is usable from the keyboard alone: tabs with the arrow keys, a message with Enter', async () => {
    await page.goto(`${stack.url}/#/tasks/${tasks.parent}`);
    await poll(messages).toContain('The sources are in.');
    await page.getByRole('tab', { name: 'Task' }).focus();
    await page.keyboard.press('ArrowRight');
    await poll(() => page.getByRole('tab', { name: 'Plan' }).getAttribute('aria-selected')).toBe(
      'true'
    );
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Plan');
    await page.keyboard.press('End');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Trace');
    await page.keyboard.press('Home');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Task');
    // A fresh load, then from the skip link to the composer with Tab only.
    await page.goto('about:blank');
    await page.goto(`${stack.url}/#/`);
    await poll(() => page.getByRole('textbox').count()).toBeGreaterThan(0);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe(
      'Skip to the task'
    );
    let reached = false;
    for (let presses = 0; presses < 30 && !reached; presses++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.tagName === 'TEXTAREA');
    }
    expect(reached, 'Tab reaches the composer').toBe(true);
  });
});
