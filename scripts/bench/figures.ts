/**
 * Every figure one run of the benchmark produces: what `--json FILE` writes, what `--markdown`
 * and `--write-docs` render, and what `--from FILE` reads back. docs/benchmark.md documents it.
 * A part left out with `--skip` is `null`.
 */
import * as z from 'zod';

const count = z.number().int().nonnegative();
const figure = z.number().nonnegative();

/** CPU time per conversation: the stack's Node, its DynamoDB Local (null: unreadable), the clients. */
const conversationCpu = z.strictObject({
  stack_node: figure,
  dynamodb_local: figure.nullable(),
  clients: figure,
});
const perTurn = z.record(z.string(), figure);

export const ScenarioFiguresSchema = z.strictObject({
  label: z.string(),
  turns: count,
  messages: count,
  runs: count,
  transitions_per_turn: figure,
  history_events_per_turn: figure,
  turns_per_generation: count,
  lambda_invocations_per_turn: figure,
  ddb_reads_per_turn: figure,
  ddb_writes_per_turn: figure,
  rru_per_turn: figure,
  /** Write units as DynamoDB Local reports them. */
  wru_per_turn: figure,
  /**
   * Write units as AWS bills them (scripts/bench/billed-units.ts), which the dollars are priced
   * at; absent from runs before it (whose dollars used `wru_per_turn`).
   */
  wru_billed_per_turn: figure.optional(),
  usd_per_1000_turns: figure,
  usd_per_1000_turns_by_service: z.strictObject({
    step_functions: figure,
    lambda: figure,
    dynamodb: figure,
  }),
  local_ms_per_turn: figure,
  handlers_ms_per_turn: figure,
  /** Time the turn's DynamoDB calls took, as their callers waited, summed. */
  ddb_ms_per_turn: figure,
  inprocess_ms_per_turn: figure,
  overhead_ratio: figure,
  states_per_turn: perTurn,
  ddb_commands_per_turn: perTurn,
  ddb_items_per_turn: perTurn,
  refused_writes: count,
});

const GrowthSchema = z.strictObject({ early_ms: figure, late_ms: figure, ratio: figure });

export const LangGraphRowSchema = z.strictObject({
  turns: count,
  local_ms_per_turn: figure,
  inprocess_ms_per_turn: figure,
  memory_saver_ms_per_turn: figure,
  sqlite_saver_ms_per_turn: figure,
  /** Durable against durable: our local stack ÷ LangGraph on SQLite. */
  local_vs_sqlite_saver: figure,
  /** In memory against in memory: our in-process driver ÷ LangGraph's MemorySaver. */
  inprocess_vs_memory_saver: figure,
});

export const BenchFiguresSchema = z.strictObject({
  run: z.strictObject({
    started_at: z.string(),
    /** The commit measured (`git describe --always --dirty`). */
    commit: z.string(),
    seconds: figure,
    node: z.string(),
    machine: z.string(),
    load_before: z.array(figure),
    load_after: z.array(figure),
    options: z.record(z.string(), z.union([z.number(), z.string(), z.array(z.string())])),
  }),
  scenarios: z
    .strictObject({
      chat: ScenarioFiguresSchema,
      one_tool: ScenarioFiguresSchema,
      four_tools: ScenarioFiguresSchema,
      /** A chat whose task has a budget: what the check before each call costs (absent before it). */
      chat_budgeted: ScenarioFiguresSchema.optional(),
    })
    .nullable(),
  renewal: z
    .strictObject({
      threshold_turns: count,
      worst_events_per_turn: figure,
      projected_events: count,
      history_limit: count,
      events_per_turn_base: figure,
      events_per_tool_call: figure,
      max_average_tool_calls: figure,
    })
    .nullable(),
  langgraph: z
    .strictObject({
      scenario: z.literal('one_tool'),
      runs: count,
      durability: z.string(),
      sqlite: z.strictObject({ journal_mode: z.string(), synchronous: z.string() }),
      versions: z.record(z.string(), z.string()),
      rows: z.array(LangGraphRowSchema),
    })
    .nullable(),
  growth: z
    .strictObject({
      scenario: z.literal('one_tool'),
      turns: count,
      early_turn: count,
      late_turn: count,
      window: count,
      local: GrowthSchema,
      inprocess: GrowthSchema,
      memory_saver: GrowthSchema,
      sqlite_saver: GrowthSchema,
    })
    .nullable(),
  bundles: z
    .record(
      z.string(),
      z.strictObject({
        bytes: count,
        js_bytes: count,
        source_map_bytes: count,
        import_ms: figure,
        import_ms_without_node_options: figure,
        node_options: z.string(),
      })
    )
    .nullable(),
  step_bundles: z
    .array(
      z.strictObject({
        step: z.enum(['turn-step', 'tool-step']),
        provider: z.string().nullable(),
        bytes: count,
        mcp_bytes: count,
        traced_bytes: count,
        import_ms: figure,
        mcp_import_ms: figure,
        traced_import_ms: figure,
      })
    )
    .nullable(),
  new_conversations: z
    .strictObject({
      clients: count,
      conversations: count,
      seconds: figure,
      per_s: figure,
      p50_ms: figure,
      p95_ms: figure,
      stopped: z.string().nullable(),
      cpu_ms_per_conversation: conversationCpu,
      /** The machine's cores, as Node counts them (os.availableParallelism). */
      cores: count,
      /** Cores × 1000 ÷ the CPU ms of one conversation: the rate with every core busy. */
      cpu_ceiling_per_s: figure.nullable(),
      /**
       * The conversations opened first on the fresh stack, not timed, and what each cost (null:
       * none). Absent from the figures of a build that timed a cold stack.
       */
      warm_up: z
        .strictObject({
          conversations: count,
          seconds: figure,
          cpu_ms_per_conversation: conversationCpu,
        })
        .nullable()
        .optional(),
    })
    .nullable(),
  parked: z
    .strictObject({
      target: count,
      parked: count,
      seconds: figure,
      clients: count,
      /** Executions the engine already held running when parking began (earlier parts). */
      running_executions_before: count,
      node_rss_bytes: count,
      node_heap_used_bytes: count,
      dynamodb_rss_bytes: count,
      total_rss_bytes: count,
      baseline: z.strictObject({
        node_rss_bytes: count,
        node_heap_used_bytes: count,
        dynamodb_rss_bytes: count,
      }),
      /** Growth per parked conversation, from the baseline (may be negative after a collection). */
      node_rss_bytes_per_parked: z.number(),
      dynamodb_rss_bytes_per_parked: z.number(),
      /**
       * CPU the stack used per second of idling with every conversation parked: its Node and its
       * DynamoDB Local (null: unreadable), over `seconds`.
       */
      idle_cpu_ms_per_s: z
        .strictObject({
          seconds: figure,
          stack_node: figure,
          dynamodb_local: figure.nullable(),
        })
        .nullable(),
      checkpoints: z.array(
        z.strictObject({
          parked: count,
          seconds: figure,
          node_rss_bytes: count,
          node_heap_used_bytes: count,
          dynamodb_rss_bytes: count,
        })
      ),
      stopped: z.string().nullable(),
    })
    .nullable(),
  child_to_parent_ms: z
    .strictObject({
      children: count,
      p50: figure,
      p95: figure,
      max: figure,
      next_model_call_p50: figure,
      next_model_call_p95: figure,
    })
    .nullable(),
  concurrent_senders: z
    .strictObject({
      senders: count,
      messages_per_sender: count,
      accepted: count,
      refused: count,
      seconds: figure,
      p50_ms: figure,
      p95_ms: figure,
      max_ms: figure,
    })
    .nullable(),
  task_growth: z
    .strictObject({
      turns: count,
      rows: z.array(
        z.strictObject({
          sub_tasks: count,
          plan_steps: count,
          items_per_turn: figure,
          wru_per_turn: figure,
          /** As AWS bills them; absent from runs before it. */
          wru_billed_per_turn: figure.optional(),
          ms_per_turn: figure,
          record_bytes: count,
        })
      ),
    })
    .nullable(),
  fork: z
    .strictObject({
      rows: z.array(
        z.strictObject({
          turns: count,
          runs: count,
          ms: figure,
          ddb_reads: figure,
          ddb_items_written: figure,
        })
      ),
    })
    .nullable(),
  tracing: z
    .strictObject({
      scenario: z.literal('one_tool'),
      turns: count,
      runs: count,
      rows: z.array(
        z.strictObject({
          exporter: z.enum(['compiled out', 'none', 'file', 'otlp']),
          wall_ms_per_turn: figure,
          step_ms_per_turn: figure,
          vs_compiled_out: figure,
          spans_per_turn: figure.nullable(),
        })
      ),
    })
    .nullable(),
});

export type BenchFigures = z.infer<typeof BenchFiguresSchema>;
export type ScenarioFigures = z.infer<typeof ScenarioFiguresSchema>;
export type LangGraphRow = z.infer<typeof LangGraphRowSchema>;
