import type { Hooks } from '../hooks/hooks.js';
import type { AgentDirectory } from '../ports/agent-directory.js';
import type { Clock } from '../ports/clock.js';
import type { EventLog } from '../ports/event-log.js';
import type { Ids } from '../ports/ids.js';
import type { Model } from '../ports/model.js';
import type { TaskStore } from '../ports/task-store.js';
import type { ToolRunner } from '../ports/tool-runner.js';
import type { Waker } from '../ports/waker.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { LoopConfig } from './config.js';
import type { HarnessHookPoints } from './hook-points.js';

/** Everything the loop's operations need; built once per process by a composition root. */
export interface LoopDeps {
  store: TaskStore;
  events: EventLog;
  model: Model;
  tools: ToolRegistry;
  runner?: ToolRunner | undefined;
  agents: AgentDirectory;
  clock: Clock;
  ids: Ids;
  hooks: Hooks<HarnessHookPoints>;
  config: LoopConfig;
  /** Follows the wakes operations end with (resume, cut, revive, release ended tasks). */
  waker: Waker;
  /**
   * Waits before an operation reads and decides again after its `attempt`-th conflict, so
   * writers that lost the same race do not all race again at once. Absent: at once.
   */
  pauseAfterConflict?: ((attempt: number) => Promise<void>) | undefined;
}
