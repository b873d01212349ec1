/** The page's live data: a followed task, its conversation, the task list and the timeline. */
import type { Message } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { followTask, readView } from '../../../functions/view/follow.js';
import { messageText } from '../../../functions/view/messages.js';
import { listTaskViews } from '../../../functions/view/task-list.js';
import { type Agent, describeError } from '../agent/agent.js';
import { type Lineage, lineageOf } from '../agent/read.js';
import type { TaskView } from '../generated/task-view.js';
import type { Timeline } from '../generated/timeline.js';

export interface Followed {
  view: TaskView | undefined;
  error: string | undefined;
  /** Follow again after an error. */
  retry(): void;
  /**
   * Read the task until its status moves past `since` (about 20 s at most): what a control
   * answer changes can stay in the same state, which the stream does not carry (a refused
   * completion, an approval of some of the calls waiting).
   */
  awaitChange(since: string | null): void;
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The task as it changes: the current view first, then one per change, until it ends. */
export const useFollowedTask = (agent: Agent, taskId: string | undefined): Followed => {
  const [view, setView] = useState<TaskView>();
  const [error, setError] = useState<string>();
  const [attempt, setAttempt] = useState(0);
  const shown = useRef<{ taskId: string | undefined; view: TaskView | undefined }>({
    taskId,
    view: undefined,
  });
  shown.current = { taskId, view };
  const awaitChange = useCallback(
    (since: string | null) => {
      if (taskId === undefined) return;
      const moved = () =>
        shown.current.taskId !== taskId || (shown.current.view?.updated_at ?? null) !== since;
      void (async () => {
        for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
          await pause(300);
          if (moved()) return;
          const read = await readView(agent, taskId).catch(() => undefined);
          if (moved()) return;
          if (read !== undefined && read.updated_at !== since) {
            setView(read);
            return;
          }
        }
      })();
    },
    [agent, taskId]
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: a retry follows again
  useEffect(() => {
    setView(undefined);
    setError(undefined);
    if (taskId === undefined) return;
    const controller = new AbortController();
    void (async () => {
      try {
        for await (const next of followTask(agent, taskId, controller.signal)) {
          if (controller.signal.aborted) return;
          setView(next);
          setError(undefined);
        }
      } catch (caught) {
        if (!controller.signal.aborted) setError(describeError(caught));
      }
    })();
    return () => controller.abort();
  }, [agent, taskId, attempt]);
  return {
    view,
    error,
    retry: useCallback(() => setAttempt((n) => n + 1), []),
    awaitChange,
  };
};

export interface Said {
  id: string;
  from: 'participant' | 'agent';
  /** The participant who sent it (a participant's message). */
  participant: string | null;
  text: string;
  /** Sent from this page and not in the task's history yet. */
  pending?: boolean;
}

const isWorking = (view: TaskView) =>
  view.state === 'TASK_STATE_WORKING' || view.state === 'TASK_STATE_SUBMITTED';

/** Changes only when the task settles somewhere new: not on each step of a turn. */
export const settledKey = (view: TaskView | undefined) =>
  view === undefined
    ? ''
    : isWorking(view)
      ? 'working'
      : `${view.state}|${view.sub_state}|${view.status_text}`;

const saidOf = (message: Message): Said => ({
  id: message.messageId,
  from: message.role === Role.ROLE_AGENT ? 'agent' : 'participant',
  participant:
    typeof message.metadata?.participant_id === 'string' ? message.metadata.participant_id : null,
  text: messageText(message),
});

/** How many of the last messages the conversation shows. */
const HISTORY_LENGTH = 200;

const NO_LINEAGE: Lineage = { forkedFrom: null, forks: [] };

/**
 * The conversation: the task's history, read again whenever the task settles with something new
 * (it pauses or ends, or its status message changes while it waits: progress while it works adds
 * nothing to the history), and the messages sent from this page until the history has them. The
 * same read says where the task was forked from and its forks, which no stream event carries.
 */
export const useConversation = (
  agent: Agent,
  taskId: string | undefined,
  view: TaskView | undefined,
  /** Sent from this page to the task (kept by the caller across pages). */
  outbox: readonly Said[]
) => {
  const [history, setHistory] = useState<Said[]>([]);
  const [lineage, setLineage] = useState<Lineage>(NO_LINEAGE);
  const [error, setError] = useState<string>();
  const key = settledKey(view);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another task starts empty
  useEffect(() => {
    setHistory([]);
    setLineage(NO_LINEAGE);
  }, [taskId]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when the task speaks
  useEffect(() => {
    if (taskId === undefined) return;
    let current = true;
    agent.client
      .getTask({ tenant: '', id: taskId, historyLength: HISTORY_LENGTH })
      .then((task) => {
        if (!current) return;
        const said = task.history.map(saidOf).filter((message) => message.text !== '');
        setHistory(said);
        setLineage(lineageOf(task));
        setError(undefined);
      })
      .catch((caught: unknown) => {
        if (current) setError(describeError(caught));
      });
    return () => {
      current = false;
    };
  }, [agent, taskId, key]);
  const known = new Set(history.map((said) => said.id));
  return {
    messages: [...history, ...outbox.filter((said) => !known.has(said.id))],
    lineage,
    error,
  };
};

/**
 * The names of tasks on this agent, by task id: a sub-task row and a fork carry only the task's
 * id, so each is read once (a remote child is not readable with this page's credentials).
 */
export const useTaskNames = (
  agent: Agent,
  ids: readonly string[]
): Readonly<Record<string, string>> => {
  const [names, setNames] = useState<Record<string, string>>({});
  const asked = useRef(new Set<string>());
  const key = ids.join(' ');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the ids are what the key says
  useEffect(() => {
    for (const id of ids) {
      if (asked.current.has(id)) continue;
      asked.current.add(id);
      readView(agent, id)
        .then((task) => {
          const name = task.name;
          if (name !== null) setNames((known) => ({ ...known, [id]: name }));
        })
        .catch(() => asked.current.delete(id));
    }
  }, [agent, key]);
  return names;
};

/** The text of a task's message with this id, in the history a read returned. */
const textOfMessage = (history: readonly Message[], messageId: string): string | undefined => {
  const message = history.find((candidate) => candidate.messageId === messageId);
  return message === undefined ? undefined : messageText(message);
};

export interface PastView {
  /** The message of the task's history it is shown at. */
  at: string;
  view?: TaskView | undefined;
  lineage?: Lineage | undefined;
  /** That message's text, as the read's history has it. */
  text?: string | undefined;
  error?: string | undefined;
}

/**
 * The task as it was at a message of its history (GetTaskAt), while the address names one: read
 * once, since the past does not change.
 */
export const useTaskAt = (
  agent: Agent,
  taskId: string,
  at: string | undefined
): PastView | undefined => {
  const [read, setRead] = useState<PastView>();
  useEffect(() => {
    if (at === undefined) return;
    let current = true;
    agent
      .taskAt(taskId, { messageId: at })
      .then((task) => {
        if (!current) return;
        setRead({
          at,
          view: agent.view(task),
          lineage: lineageOf(task),
          text: textOfMessage(task.history, at),
        });
      })
      .catch((caught: unknown) => {
        if (current) setRead({ at, error: describeError(caught) });
      });
    return () => {
      current = false;
    };
  }, [agent, taskId, at]);
  if (at === undefined) return undefined;
  // What was read for another message is not shown for this one.
  return read?.at === at ? read : { at };
};

export interface ForkOrigin {
  taskId: string;
  messageId: string | null;
  /** The original's name, once read. */
  name?: string | undefined;
  /** The text of the message the fork was made at, once read. */
  text?: string | undefined;
}

/**
 * Where a fork came from, in words: the original's name and the message it was forked at, read
 * from the original as it was then (GetTaskAt). Ids alone when the original cannot be read.
 */
export const useForkOrigin = (
  agent: Agent,
  forkedFrom: Lineage['forkedFrom']
): ForkOrigin | undefined => {
  const [read, setRead] = useState<ForkOrigin>();
  const taskId = forkedFrom?.task_id;
  const messageId = forkedFrom?.message_id ?? null;
  useEffect(() => {
    if (taskId === undefined) return;
    let current = true;
    const task =
      messageId === null
        ? agent.client.getTask({ tenant: '', id: taskId, historyLength: 0 })
        : agent.taskAt(taskId, { messageId });
    task
      .then((original) => {
        if (!current) return;
        setRead({
          taskId,
          messageId,
          name: agent.view(original).name ?? undefined,
          text: messageId === null ? undefined : textOfMessage(original.history, messageId),
        });
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [agent, taskId, messageId]);
  if (taskId === undefined) return undefined;
  return read?.taskId === taskId && read.messageId === messageId ? read : { taskId, messageId };
};

export interface TaskListFilter {
  state: string;
  search: string;
}

/** The caller's tasks, newest first: read again when asked, and every 15 s while visible. */
export const useTaskList = (agent: Agent, filter: TaskListFilter, refreshKey: string) => {
  const [tasks, setTasks] = useState<TaskView[]>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setTick((n) => n + 1);
    }, 15_000);
    return () => clearInterval(timer);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey and tick read it again
  useEffect(() => {
    const controller = new AbortController();
    listTaskViews(agent.client, agent.view, { state: filter.state, limit: 100 }, controller.signal)
      .then((views) => {
        setTasks(views);
        setError(undefined);
      })
      .catch((caught: unknown) => {
        if (!controller.signal.aborted) setError(describeError(caught));
      });
    return () => controller.abort();
  }, [agent, filter.state, refreshKey, tick]);
  const search = filter.search.trim().toLowerCase();
  const shown =
    search === ''
      ? tasks
      : tasks?.filter((task) =>
          `${task.name ?? ''} ${task.id} ${task.goal ?? ''}`.toLowerCase().includes(search)
        );
  return { tasks: shown, error };
};

/**
 * The task's timeline while the Trace pane is open: read when it opens, when the task changes
 * (at most every 2 s), and on demand.
 */
export const useTimeline = (agent: Agent, taskId: string, open: boolean, changeKey: string) => {
  const [timeline, setTimeline] = useState<Timeline>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const last = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: changeKey and attempt read it again
  useEffect(() => {
    if (!open || !agent.audits) return;
    let current = true;
    const wait = Math.max(0, last.current + 2_000 - Date.now());
    const timer = setTimeout(() => {
      last.current = Date.now();
      setLoading(true);
      agent
        .timeline(taskId)
        .then((read) => {
          if (!current) return;
          setTimeline(read);
          setError(undefined);
        })
        .catch((caught: unknown) => {
          if (current) setError(describeError(caught));
        })
        .finally(() => {
          if (current) setLoading(false);
        });
    }, wait);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [agent, taskId, open, changeKey, attempt]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another task starts empty
  useEffect(() => {
    setTimeline(undefined);
  }, [taskId]);
  return {
    timeline,
    error,
    loading,
    refresh: useCallback(() => setAttempt((n) => n + 1), []),
  };
};
