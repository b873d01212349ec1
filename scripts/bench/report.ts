/**
 * The benchmark's figures as tables, for a terminal (text) or for the docs (Markdown): every
 * table `--markdown` prints is the block `--write-docs` puts in docs/benchmark.md; the README
 * gets a summary of the same figures. Pure: figures in, text out.
 */
import { BUNDLE_BUDGET_BYTES } from '../../cdk/lambda-bundle.js';
import { CLOUD_FIGURES, cloudLatencyOf } from './cloud-latency.js';
import type { BenchFigures, ScenarioFigures } from './figures.js';
import {
  dollars,
  fixed,
  mb,
  mib,
  orUnknown,
  type TableStyle,
  table,
  thousands,
  times,
} from './format.js';
import { LAMBDA_MEMORY_GB, PRICES } from './prices.js';

interface Section {
  title: string;
  body: string[];
}

const scenarioList = (figures: BenchFigures): ScenarioFigures[] =>
  figures.scenarios === null
    ? []
    : [figures.scenarios.chat, figures.scenarios.one_tool, figures.scenarios.four_tools];

/**
 * Whether every scenario has its write units as AWS bills them (runs before they were measured
 * have DynamoDB Local's alone, and render as they did).
 */
const billedIn = (scenarios: readonly ScenarioFigures[]): boolean =>
  scenarios.length > 0 && scenarios.every((s) => s.wru_billed_per_turn !== undefined);

const runLine = (figures: BenchFigures): string => {
  const { run } = figures;
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
  return (
    `Run on ${run.started_at.slice(0, 16).replace('T', ' ')} UTC at ${run.commit} (${fixed(run.seconds / 60)} min): ` +
    `${run.node}, ${run.machine}; load average ${loads(run.load_before)} before, ` +
    `${loads(run.load_after)} after. Options: ${Object.entries(run.options)
      .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(',') || '-' : value}`)
      .join(', ')}.`
  );
};

const scenarioSections = (figures: BenchFigures, style: TableStyle): Section[] => {
  const scenarios = scenarioList(figures);
  if (scenarios.length === 0) return [];
  const turns = scenarios[0]?.turns ?? 0;
  const runs = scenarios[0]?.runs ?? 0;
  const billed = billedIn(scenarios);
  const perTurnTable = (
    header: string,
    pick: (scenario: ScenarioFigures) => Record<string, number>,
    sorted: boolean
  ) => {
    const names = [...new Set(scenarios.flatMap((scenario) => Object.keys(pick(scenario))))];
    if (sorted) names.sort();
    return table(
      style,
      [header, ...scenarios.map((scenario) => scenario.label)],
      names.map((name) => [name, ...scenarios.map((s) => fixed(pick(s)[name] ?? 0, 2))])
    );
  };
  const sections: Section[] = [
    {
      title: `Counts per turn (K = ${turns} turns, median of ${runs} runs; a turn is one model invocation)`,
      body: [
        table(
          style,
          [
            'scenario',
            'turns',
            'msgs',
            'transitions/turn',
            'events/turn',
            'turns/gen (25k)',
            'Lambda inv/turn',
            'DDB reads/turn',
            'DDB writes/turn',
            'RRU/turn',
            ...(billed ? ['WRU/turn (as billed)', 'WRU/turn (DynamoDB Local)'] : ['WRU/turn']),
          ],
          scenarios.map((s) => [
            s.label,
            String(s.turns),
            String(s.messages),
            fixed(s.transitions_per_turn),
            fixed(s.history_events_per_turn),
            String(s.turns_per_generation),
            fixed(s.lambda_invocations_per_turn, 2),
            fixed(s.ddb_reads_per_turn),
            fixed(s.ddb_writes_per_turn),
            fixed(s.rru_per_turn),
            ...(billed ? [fixed(s.wru_billed_per_turn ?? 0)] : []),
            fixed(s.wru_per_turn),
          ])
        ),
      ],
    },
    {
      title: 'Orchestration cost per 1,000 turns (model excluded) and wall time per turn',
      body: [
        table(
          style,
          [
            'scenario',
            'Step Functions',
            'Lambda',
            'DynamoDB',
            '$ / 1,000 turns',
            'local ms/turn',
            'handlers ms/turn',
            'DynamoDB ms/turn',
            'in-process ms/turn',
            'overhead ×',
          ],
          scenarios.map((s) => [
            s.label,
            dollars(s.usd_per_1000_turns_by_service.step_functions),
            dollars(s.usd_per_1000_turns_by_service.lambda),
            dollars(s.usd_per_1000_turns_by_service.dynamodb),
            dollars(s.usd_per_1000_turns),
            fixed(s.local_ms_per_turn),
            fixed(s.handlers_ms_per_turn),
            fixed(s.ddb_ms_per_turn),
            fixed(s.inprocess_ms_per_turn, 2),
            fixed(s.overhead_ratio, 0),
          ])
        ),
      ],
    },
    {
      title: 'Where the transitions go (states entered per turn)',
      body: [perTurnTable('state', (s) => s.states_per_turn, false)],
    },
    {
      title: 'DynamoDB commands per turn',
      body: [perTurnTable('command', (s) => s.ddb_commands_per_turn, true)],
    },
    {
      title:
        'DynamoDB items per turn, by command and kind of item (the sort key’s prefix, functions/adapters/dynamodb/table.ts)',
      body: [perTurnTable('command and item', (s) => s.ddb_items_per_turn, true)],
    },
  ];
  const refused = scenarios.reduce((sum, s) => sum + s.refused_writes, 0);
  const renewal = figures.renewal;
  if (renewal !== null) {
    const safe = renewal.projected_events < renewal.history_limit;
    sections.push({
      title: 'Renewal',
      body: [
        `The default threshold is ${renewal.threshold_turns} turns per generation; at the worst ` +
          `${fixed(renewal.worst_events_per_turn)} events per turn that is ` +
          `${thousands(renewal.projected_events)} events, ` +
          (safe
            ? `within the ${thousands(renewal.history_limit)} limit (${fixed((100 * renewal.projected_events) / renewal.history_limit, 0)} %).`
            : `over the ${thousands(renewal.history_limit)} limit: NOT safe.`) +
          ` History events per turn ≈ ${fixed(renewal.events_per_turn_base)} + ` +
          `${fixed(renewal.events_per_tool_call)} per tool call: the threshold holds while turns ` +
          `average fewer than ${fixed(renewal.max_average_tool_calls)} tool calls.` +
          (refused > 0 ? ` Refused conditional writes: ${refused}.` : ''),
      ],
    });
  }
  return sections;
};

/**
 * What the budget check costs a turn: the same chat with and without a budget. A budget's check
 * is a write (the call's worst case taken from every budget it draws on, its own and its
 * ancestors' on this harness, in one request), never a read.
 */
const budgetCheckSection = (figures: BenchFigures, style: TableStyle): Section[] => {
  const plain = figures.scenarios?.chat;
  const budgeted = figures.scenarios?.chat_budgeted;
  if (plain === undefined || budgeted === undefined) return [];
  const row = (name: string, pick: (s: ScenarioFigures) => number, digits = 2) => [
    name,
    fixed(pick(plain), digits),
    fixed(pick(budgeted), digits),
    fixed(pick(budgeted) - pick(plain), digits),
  ];
  return [
    {
      title: `The budget check: a chat turn without and with a budget (${budgeted.turns} turns, ${budgeted.runs} runs)`,
      body: [
        table(
          style,
          ['per turn', plain.label, budgeted.label, 'difference'],
          [
            row('DynamoDB reads', (s) => s.ddb_reads_per_turn),
            row('DynamoDB writes', (s) => s.ddb_writes_per_turn),
            row('read units', (s) => s.rru_per_turn),
            ...(billedIn([plain, budgeted])
              ? [
                  row('write units (as billed)', (s) => s.wru_billed_per_turn ?? 0),
                  row('write units (DynamoDB Local)', (s) => s.wru_per_turn),
                ]
              : [row('write units', (s) => s.wru_per_turn)]),
            row('local ms', (s) => s.local_ms_per_turn, 1),
          ]
        ),
      ],
    },
  ];
};

const langGraphSections = (figures: BenchFigures, style: TableStyle): Section[] => {
  const sections: Section[] = [];
  const { langgraph, growth } = figures;
  if (langgraph !== null) {
    sections.push({
      title: `Side by side with LangGraph.js: the 1-tool-call conversation, ms per turn (${langgraph.runs > 1 ? `median of ${langgraph.runs} runs` : 'one run'} at the shorter length, one run at the longer)`,
      body: [
        table(
          style,
          [
            'turns',
            'tiny-harness local stack',
            'tiny-harness in-process',
            'LangGraph MemorySaver',
            'LangGraph SqliteSaver (file)',
            'local ÷ SqliteSaver',
            'in-process ÷ MemorySaver',
          ],
          langgraph.rows.map((row) => [
            String(row.turns),
            fixed(row.local_ms_per_turn, 1),
            fixed(row.inprocess_ms_per_turn, 2),
            fixed(row.memory_saver_ms_per_turn, 2),
            fixed(row.sqlite_saver_ms_per_turn, 2),
            times(row.local_vs_sqlite_saver),
            times(row.inprocess_vs_memory_saver),
          ])
        ),
        `LangGraph.js ${Object.entries(langgraph.versions)
          .map(([name, version]) => `${name} ${version}`)
          .join(', ')}; durability "${langgraph.durability}"; SQLite journal_mode ` +
          `${langgraph.sqlite.journal_mode}, synchronous ${langgraph.sqlite.synchronous}.`,
      ],
    });
  }
  if (growth !== null) {
    const rows: Array<[string, { early_ms: number; late_ms: number; ratio: number }]> = [
      ['tiny-harness local stack', growth.local],
      ['tiny-harness in-process', growth.inprocess],
      ['LangGraph MemorySaver', growth.memory_saver],
      ['LangGraph SqliteSaver (file)', growth.sqlite_saver],
    ];
    sections.push({
      title: `Flat as history grows? Per-turn time at turn ${growth.late_turn} ÷ at turn ${growth.early_turn}, same ${growth.turns}-turn conversation (median of the ${growth.window} turns around each)`,
      body: [
        table(
          style,
          ['driver', `ms at turn ${growth.early_turn}`, `ms at turn ${growth.late_turn}`, 'ratio'],
          rows.map(([name, value]) => [
            name,
            fixed(value.early_ms, 2),
            fixed(value.late_ms, 2),
            fixed(value.ratio, 2),
          ])
        ),
      ],
    });
  }
  return sections;
};

const cloudSection = (figures: BenchFigures, style: TableStyle): Section[] => {
  const scenarios = scenarioList(figures);
  if (scenarios.length === 0) return [];
  const { low, high } = CLOUD_FIGURES.dynamodbRequestMs;
  return [
    {
      title:
        'Cloud latency per turn, on paper (orchestration only; the model and the client’s round trip excluded)',
      body: [
        table(
          style,
          [
            'scenario',
            'states/turn',
            'Lambda inv/turn',
            'DDB requests/turn',
            `DynamoDB ms/turn at ${low}–${high} ms a request`,
            '+ ms per 10 ms a state',
            '+ ms per 10 ms an invocation',
          ],
          scenarios.map((scenario) => {
            const cloud = cloudLatencyOf(scenario);
            return [
              scenario.label,
              fixed(cloud.states),
              fixed(cloud.invocations, 2),
              fixed(cloud.dynamodbRequests, 1),
              `${fixed(cloud.dynamodbLowMs, 0)}–${fixed(cloud.dynamodbHighMs, 0)}`,
              fixed(cloud.per10msStateMs, 0),
              fixed(cloud.per10msInvocationMs, 0),
            ];
          })
        ),
      ],
    },
  ];
};

const bundleSection = (figures: BenchFigures, style: TableStyle): Section[] => {
  if (figures.bundles === null) return [];
  const entries = Object.entries(figures.bundles);
  const options = [...new Set(entries.map(([, bundle]) => bundle.node_options))].join('; ');
  return [
    {
      title: `Lambda bundles (built as cdk synth builds them; import: a fresh node process, median of ${figures.run.options['import-runs'] ?? '?'})`,
      body: [
        table(
          style,
          [
            'function',
            'bundle (minified JS)',
            'all JS',
            'source map',
            'import ms (function’s NODE_OPTIONS)',
            'import ms (none)',
          ],
          entries.map(([name, bundle]) => [
            name,
            mb(bundle.bytes),
            mb(bundle.js_bytes),
            mb(bundle.source_map_bytes),
            fixed(bundle.import_ms, 0),
            fixed(bundle.import_ms_without_node_options, 0),
          ])
        ),
        `NODE_OPTIONS the stack sets: ${options === '' ? '(none)' : `\`${options}\``}.`,
      ],
    },
  ];
};

const stepSection = (figures: BenchFigures, style: TableStyle): Section[] => {
  if (figures.step_bundles === null) return [];
  const past = (bytes: number) =>
    bytes > BUNDLE_BUDGET_BYTES ? thousands(bytes - BUNDLE_BUDGET_BYTES) : '—';
  return [
    {
      title: `The turn step by model provider and the tool step, without and with MCP servers and tracing (bytes of minified JS; budget ${thousands(BUNDLE_BUDGET_BYTES)})`,
      body: [
        table(
          style,
          [
            'step',
            'bundle',
            'with MCP servers',
            'MCP adds',
            'with MCP and tracing',
            'past the budget by (MCP and tracing)',
            'import ms',
            'import ms (MCP)',
            'import ms (MCP and tracing)',
          ],
          figures.step_bundles.map((row) => [
            row.provider === null ? row.step : `${row.step} (${row.provider})`,
            thousands(row.bytes),
            thousands(row.mcp_bytes),
            thousands(row.mcp_bytes - row.bytes),
            thousands(row.traced_bytes),
            past(row.traced_bytes),
            fixed(row.import_ms, 0),
            fixed(row.mcp_import_ms, 0),
            fixed(row.traced_import_ms, 0),
          ])
        ),
      ],
    },
  ];
};

type NewConversations = NonNullable<BenchFigures['new_conversations']>;

/** What the stack did before the conversations were timed. */
const warmUpSentence = (warmUp: NewConversations['warm_up']): string => {
  if (warmUp === undefined) return 'They were timed on a fresh stack, cold.';
  if (warmUp === null) return 'They were timed on a fresh stack, cold (no warm-up asked for).';
  const cpu = warmUp.cpu_ms_per_conversation;
  return (
    `They were timed after ${thousands(warmUp.conversations)} conversations opened first on the ` +
    'fresh stack and not counted, while V8 and the DynamoDB Local JVM compile their hot code: ' +
    `those cost ${fixed(cpu.stack_node)} ms (Node) + ${orUnknown(cpu.dynamodb_local)} ms ` +
    `(DynamoDB Local) of CPU each, in ${fixed(warmUp.seconds)} s.`
  );
};

const loadSections = (figures: BenchFigures, style: TableStyle): Section[] => {
  const sections: Section[] = [];
  const { new_conversations: opened, parked, child_to_parent_ms: child } = figures;
  if (opened !== null) {
    sections.push({
      title: `New conversations per second (${opened.clients} concurrent clients, a blocking SendMessage each, demo model, each parks)`,
      body: [
        table(
          style,
          [
            'conversations',
            'seconds',
            'per second',
            'p50 ms',
            'p95 ms',
            'CPU ms each: stack (Node)',
            'DynamoDB Local',
            'clients',
            'CPU-bound ceiling per second',
          ],
          [
            [
              thousands(opened.conversations),
              fixed(opened.seconds),
              fixed(opened.per_s),
              fixed(opened.p50_ms, 0),
              fixed(opened.p95_ms, 0),
              fixed(opened.cpu_ms_per_conversation.stack_node),
              orUnknown(opened.cpu_ms_per_conversation.dynamodb_local),
              fixed(opened.cpu_ms_per_conversation.clients),
              orUnknown(opened.cpu_ceiling_per_s),
            ],
          ]
        ),
        `The ceiling is the rate with all ${opened.cores} cores busy with nothing but these three ` +
          'processes (cores × 1,000 ÷ the CPU ms of one conversation): no number of clients ' +
          'opens conversations faster on this machine.',
        warmUpSentence(opened.warm_up),
        ...(opened.stopped === null ? [] : [`Stopped early: ${opened.stopped}.`]),
      ],
    });
  }
  if (parked !== null) {
    sections.push({
      title: `Parked conversations, on a stack of their own (target ${thousands(parked.target)}, ${parked.clients} clients)`,
      body: [
        table(
          style,
          ['parked', 'seconds', 'Node RSS', 'Node heap used', 'DynamoDB Local RSS', 'together'],
          [
            [
              'before',
              '',
              mib(parked.baseline.node_rss_bytes),
              mib(parked.baseline.node_heap_used_bytes),
              mib(parked.baseline.dynamodb_rss_bytes),
              mib(parked.baseline.node_rss_bytes + parked.baseline.dynamodb_rss_bytes),
            ],
            ...parked.checkpoints.map((point) => [
              thousands(point.parked),
              fixed(point.seconds),
              mib(point.node_rss_bytes),
              mib(point.node_heap_used_bytes),
              mib(point.dynamodb_rss_bytes),
              mib(point.node_rss_bytes + point.dynamodb_rss_bytes),
            ]),
          ]
        ),
        `Per parked conversation: ${thousands(parked.node_rss_bytes_per_parked)} bytes of Node RSS, ` +
          `${thousands(parked.dynamodb_rss_bytes_per_parked)} bytes of DynamoDB Local RSS.` +
          (parked.stopped === null
            ? ''
            : ` Stopped at ${thousands(parked.parked)}: ${parked.stopped}.`),
        ...(parked.idle_cpu_ms_per_s === null
          ? []
          : [
              `Idle with every one of them parked (${fixed(parked.idle_cpu_ms_per_s.seconds)} s ` +
                'watched): the stack used ' +
                `${fixed(parked.idle_cpu_ms_per_s.stack_node)} ms of Node CPU and ` +
                `${orUnknown(parked.idle_cpu_ms_per_s.dynamodb_local)} ms of DynamoDB Local CPU ` +
                'a second (its stream reader reads four times a second unless a write wakes it).',
            ]),
      ],
    });
  }
  if (child !== null) {
    sections.push({
      title: `Child change → parent resumed (${child.children} children, one at a time)`,
      body: [
        table(
          style,
          ['from the child’s completing commit to', 'p50 ms', 'p95 ms', 'max ms'],
          [
            [
              'the parent’s Park state returning',
              fixed(child.p50, 0),
              fixed(child.p95, 0),
              fixed(child.max, 0),
            ],
            [
              'the parent’s next model call',
              fixed(child.next_model_call_p50, 0),
              fixed(child.next_model_call_p95, 0),
              '',
            ],
          ]
        ),
      ],
    });
  }
  const senders = figures.concurrent_senders;
  if (senders !== null) {
    sections.push({
      title: `Concurrent senders: ${senders.senders} clients × ${senders.messages_per_sender} messages to one task (SendMessage, returnImmediately, historyLength 0), in ${fixed(senders.seconds)} s`,
      body: [
        table(
          style,
          ['accepted', 'refused', 'p50 ms', 'p95 ms', 'max ms'],
          [
            [
              String(senders.accepted),
              String(senders.refused),
              fixed(senders.p50_ms, 0),
              fixed(senders.p95_ms, 0),
              fixed(senders.max_ms, 0),
            ],
          ]
        ),
      ],
    });
  }
  return sections;
};

const pricesLine = (figures: BenchFigures): string =>
  `Prices (us-east-1, as of ${PRICES.asOf}): Step Functions Standard $0.025 per 1,000 state ` +
  `transitions; Lambda arm64 $0.0000133334 per GB-second at ${LAMBDA_MEMORY_GB * 1024} MB + ` +
  '$0.20 per 1M requests; DynamoDB on-demand $0.125 per million read units, $0.625 per million ' +
  'write units' +
  (billedIn(scenarioList(figures))
    ? ' (the write units as AWS bills them, not as DynamoDB Local reports them)'
    : '') +
  '. Excluded: the model, API Gateway, CloudWatch Logs and X-Ray, free tiers. Lambda ' +
  'seconds are local handler wall times (a rough proxy, not Lambda durations).';

const taskGrowthSection = (figures: BenchFigures, style: TableStyle): Section[] => {
  if (figures.task_growth === null) return [];
  const { turns, rows } = figures.task_growth;
  const billed = rows.length > 0 && rows.every((row) => row.wru_billed_per_turn !== undefined);
  return [
    {
      title: `A chat turn as the task grows (one message and one answer; ${turns} turns each, after one not counted)`,
      body: [
        table(
          style,
          [
            'sub-task rows',
            'plan steps',
            'record bytes',
            'items/turn',
            ...(billed ? ['WRU/turn (as billed)', 'WRU/turn (DynamoDB Local)'] : ['WRU/turn']),
            'ms/turn',
          ],
          rows.map((row) => [
            String(row.sub_tasks),
            String(row.plan_steps),
            String(row.record_bytes),
            fixed(row.items_per_turn),
            ...(billed ? [fixed(row.wru_billed_per_turn ?? 0)] : []),
            fixed(row.wru_per_turn),
            fixed(row.ms_per_turn, 0),
          ])
        ),
      ],
    },
  ];
};

const forkSection = (figures: BenchFigures, style: TableStyle): Section[] => {
  if (figures.fork === null) return [];
  const { rows } = figures.fork;
  return [
    {
      title: `Forking a task (ForkTask at a conversation's last point, on the local stack, median of ${rows[0]?.runs ?? 0} forks)`,
      body: [
        table(
          style,
          ['turns of the original', 'ms', 'DynamoDB requests read', 'DynamoDB items written'],
          rows.map((row) => [
            String(row.turns),
            fixed(row.ms, 0),
            fixed(row.ddb_reads, 0),
            fixed(row.ddb_items_written, 0),
          ])
        ),
      ],
    },
  ];
};

const tracingSection = (figures: BenchFigures, style: TableStyle): Section[] => {
  if (figures.tracing === null) return [];
  const { turns, runs, rows } = figures.tracing;
  return [
    {
      title: `A turn with and without tracing (one tool call a turn, ${turns} turns, median of ${runs} runs, the four in turn; "compiled out" is the "none" stack with the bundles' tracing switch off)`,
      body: [
        table(
          style,
          ['exporter', 'ms per turn', 'vs compiled out', 'turn step ms per turn', 'spans per turn'],
          rows.map((row) => [
            row.exporter,
            fixed(row.wall_ms_per_turn, 1),
            `${fixed(row.vs_compiled_out, 2)}×`,
            fixed(row.step_ms_per_turn, 1),
            row.spans_per_turn === null ? '—' : fixed(row.spans_per_turn, 1),
          ])
        ),
      ],
    },
  ];
};

/** Every table of the run: what `--markdown` prints and the docs' marked block holds. */
export const renderReport = (figures: BenchFigures, style: TableStyle): string => {
  const sections = [
    ...scenarioSections(figures, style),
    ...budgetCheckSection(figures, style),
    ...langGraphSections(figures, style),
    ...cloudSection(figures, style),
    ...bundleSection(figures, style),
    ...stepSection(figures, style),
    ...loadSections(figures, style),
    ...taskGrowthSection(figures, style),
    ...forkSection(figures, style),
    ...tracingSection(figures, style),
  ];
  const heading = (title: string) => (style === 'markdown' ? `#### ${title}` : title);
  return [
    runLine(figures),
    ...sections.map((section) => [heading(section.title), ...section.body].join('\n\n')),
    pricesLine(figures),
  ].join('\n\n');
};

/** The README's figures: the headline per scenario, the side-by-side and the load figures. */
export const renderReadme = (figures: BenchFigures): string => {
  const parts: string[] = [
    `One run on ${figures.run.started_at.slice(0, 10)} at ${figures.run.commit} on a shared ` +
      `${figures.run.machine.split(',')[0]}: the counts are exact, the times noisy.`,
  ];
  const scenarios = scenarioList(figures);
  const billed = billedIn(scenarios);
  if (scenarios.length > 0) {
    parts.push(
      table(
        'markdown',
        [
          'per turn',
          'transitions',
          'history events',
          'Lambda invocations',
          'DynamoDB reads / writes',
          ...(billed ? ['write units as billed (DynamoDB Local)'] : []),
          '$ per 1,000 turns',
          'local ms',
          'in-process ms',
          'overhead',
        ],
        scenarios.map((s, index) => [
          index === 0 ? `chat (${s.label}, parks every turn)` : s.label,
          fixed(s.transitions_per_turn),
          fixed(s.history_events_per_turn),
          fixed(s.lambda_invocations_per_turn),
          `${fixed(s.ddb_reads_per_turn)} / ${fixed(s.ddb_writes_per_turn)}`,
          ...(billed ? [`${fixed(s.wru_billed_per_turn ?? 0)} (${fixed(s.wru_per_turn)})`] : []),
          `$${s.usd_per_1000_turns.toFixed(2)}`,
          fixed(s.local_ms_per_turn, 0),
          fixed(s.inprocess_ms_per_turn),
          times(s.overhead_ratio),
        ])
      )
    );
  }
  if (scenarios.length > 0) {
    const shares = scenarios.map(
      (s) => (100 * s.usd_per_1000_turns_by_service.step_functions) / s.usd_per_1000_turns
    );
    parts.push(
      `Step Functions is ${fixed(Math.min(...shares), 0)}–${fixed(Math.max(...shares), 0)} % ` +
        'of the orchestration cost.'
    );
  }
  if (figures.langgraph !== null) {
    parts.push(
      table(
        'markdown',
        [
          '1 tool call per turn, ms per turn',
          'tiny-harness local stack',
          'tiny-harness in-process',
          'LangGraph.js MemorySaver',
          'LangGraph.js SqliteSaver',
        ],
        figures.langgraph.rows.map((row) => [
          `${row.turns} turns`,
          fixed(row.local_ms_per_turn, 1),
          fixed(row.inprocess_ms_per_turn, 2),
          fixed(row.memory_saver_ms_per_turn, 2),
          fixed(row.sqlite_saver_ms_per_turn, 2),
        ])
      )
    );
  }
  const rows: string[][] = [];
  const { growth, bundles, new_conversations: opened, parked } = figures;
  if (growth !== null) {
    rows.push([
      `per-turn time at turn ${growth.late_turn} ÷ at turn ${growth.early_turn} (local stack)`,
      fixed(growth.local.ratio, 2),
    ]);
  }
  if (bundles !== null) {
    const values = Object.values(bundles);
    rows.push([
      'largest Lambda bundle / slowest import (as deployed)',
      `${mb(Math.max(...values.map((b) => b.bytes)))} / ${fixed(Math.max(...values.map((b) => b.import_ms)), 0)} ms`,
    ]);
  }
  if (parked !== null) {
    rows.push([
      `${thousands(parked.parked)} parked conversations: resident memory of Node + DynamoDB Local`,
      `${mib(parked.node_rss_bytes)} + ${mib(parked.dynamodb_rss_bytes)}`,
    ]);
    if (parked.idle_cpu_ms_per_s !== null) {
      rows.push([
        `${thousands(parked.parked)} parked conversations, idle: CPU a second of Node + DynamoDB Local`,
        `${fixed(parked.idle_cpu_ms_per_s.stack_node)} + ${orUnknown(parked.idle_cpu_ms_per_s.dynamodb_local)} ms`,
      ]);
    }
  }
  if (opened !== null) {
    rows.push([
      `new conversations per second (${opened.clients} clients, demo model) / CPU-bound ceiling`,
      `${fixed(opened.per_s)} / ${orUnknown(opened.cpu_ceiling_per_s)}`,
    ]);
  }
  if (figures.child_to_parent_ms !== null) {
    rows.push([
      'child change → parent resumed, p50 / p95',
      `${fixed(figures.child_to_parent_ms.p50, 0)} / ${fixed(figures.child_to_parent_ms.p95, 0)} ms`,
    ]);
  }
  if (rows.length > 0) parts.push(table('markdown', ['on the local stack', 'figure'], rows));
  return parts.join('\n\n');
};
