import { AgentCard, type Message, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  JsonRpcTransportFactory,
  type RequestOptions,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from '@a2a-js/sdk/client';
import { A2AError } from '@a2a-js/sdk/errors';
import { TASK_EXTENSION_URI } from '../../core/a2a/identifiers.js';
import { RemoteAgentRefusedError, RemoteCallError } from '../../core/errors.js';
import type {
  BriefAnswer,
  PushTarget,
  Registration,
  RemoteAgent,
  RemoteAgents,
} from '../../core/ports/remote-agents.js';
import type { EndpointPolicy } from '../../core/remote/endpoint-pin.js';
import { chooseInterface, type RemoteCard } from '../../core/remote/remote-card.js';
import { fetchWithTraceparent } from '../tracing/propagation.js';
import { AgentCardCache } from './agent-card-cache.js';
import { type Credentials, describe } from './credentials.js';

/** A registered agent as the adapter calls it: where its card is and how to authenticate. */
export interface RemoteAgentSettings extends RemoteAgent {
  cardUrl: string;
  credentials: Credentials;
}

/** The id our push config takes on each remote task we create. */
export const PUSH_CONFIG_ID = 'tiny-harness-parent';

/** HTTP answers that mean the agent could not serve the call now (tried again later). */
const UNAVAILABLE = new Set([401, 403, 408, 425, 429]);

/** Tasks a creation retried after a crash looks through for the one its first attempt made. */
const FIND_CANDIDATES = 20;

interface BuiltClient {
  raw: unknown;
  card: RemoteCard;
  client: Client;
}

/**
 * The registered remote agents over the official `@a2a-js/sdk` client: each agent's card is
 * fetched and cached (AgentCardCache), the interface chosen from its `supportedInterfaces`
 * (A2A 1.0, JSON-RPC or HTTP+JSON, at the card's own origin: chooseInterface), and every request
 * carries the agent's credentials and a timeout. Failures are sorted into RemoteCallError kinds.
 */
export class A2aRemoteAgents implements RemoteAgents {
  readonly #agents: ReadonlyMap<string, RemoteAgentSettings>;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #endpoints: EndpointPolicy;
  readonly #cards: AgentCardCache;
  readonly #clients = new Map<string, BuiltClient>();

  constructor(options: {
    agents: readonly RemoteAgentSettings[];
    fetch?: typeof fetch;
    /** One request's limit (card, token endpoint, A2A call). @default 15 s */
    timeoutMs?: number;
    /** Which endpoints a card may name beside https at its own origin. @default none */
    endpoints?: EndpointPolicy;
  }) {
    this.#agents = new Map(options.agents.map((agent) => [agent.id, agent]));
    // Every call carries the caller's trace (W3C traceparent), so the agent's spans join it.
    this.#fetch = fetchWithTraceparent(options.fetch ?? fetch);
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#endpoints = options.endpoints ?? { allowLoopback: false };
    this.#cards = new AgentCardCache({ fetch: this.#fetch, timeoutMs: this.#timeoutMs });
  }

  list(): readonly RemoteAgent[] {
    return [...this.#agents.values()];
  }

  get(agent: string): RemoteAgent | undefined {
    return this.#agents.get(agent);
  }

  async register(): Promise<Registration[]> {
    return Promise.all(
      [...this.#agents.keys()].map(async (agent): Promise<Registration> => {
        try {
          const card = await this.card(agent);
          const push = card.push && (this.#agents.get(agent)?.push ?? false);
          return { agent, outcome: 'ready', card, push };
        } catch (error) {
          if (error instanceof RemoteAgentRefusedError) {
            return { agent, outcome: 'refused', reason: error.message };
          }
          if (error instanceof RemoteCallError) {
            return { agent, outcome: 'unreachable', reason: error.message };
          }
          throw error;
        }
      })
    );
  }

  async card(agent: string): Promise<RemoteCard> {
    return (await this.#client(agent)).card;
  }

  async send(agent: string, message: Message, push: PushTarget | undefined): Promise<BriefAnswer> {
    const { client, card } = await this.#client(agent);
    const options: RequestOptions | undefined = card.taskExtension
      ? { serviceParameters: ServiceParameters.create(withA2AExtensions(TASK_EXTENSION_URI)) }
      : undefined;
    const answer = await this.#call(agent, 'SendMessage', () =>
      client.sendMessage(
        {
          tenant: '',
          message,
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig:
              push === undefined
                ? undefined
                : {
                    tenant: '',
                    id: PUSH_CONFIG_ID,
                    taskId: '',
                    url: push.url,
                    token: push.token,
                    authentication: undefined,
                  },
            historyLength: 0,
            returnImmediately: true,
          },
          metadata: undefined,
        },
        options
      )
    );
    return 'status' in answer
      ? { kind: 'task', task: answer }
      : { kind: 'message', message: answer };
  }

  async getTask(agent: string, taskId: string): Promise<Task> {
    const { client } = await this.#client(agent);
    // Enough history to find the agent's latest message; the status message usually has it.
    return this.#call(agent, 'GetTask', () =>
      client.getTask({ tenant: '', id: taskId, historyLength: 10 })
    );
  }

  async cancelTask(agent: string, taskId: string): Promise<Task> {
    const { client } = await this.#client(agent);
    return this.#call(agent, 'CancelTask', () =>
      client.cancelTask({ tenant: '', id: taskId, metadata: undefined })
    );
  }

  async findTask(agent: string, messageId: string, since: string): Promise<Task | undefined> {
    const { client } = await this.#client(agent);
    let listed: Task[];
    try {
      const page = await this.#call(agent, 'ListTasks', () =>
        client.listTasks({
          tenant: '',
          contextId: '',
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageSize: FIND_CANDIDATES,
          pageToken: '',
          historyLength: undefined,
          statusTimestampAfter: since,
          includeArtifacts: false,
        })
      );
      listed = page.tasks;
    } catch (error) {
      // An agent that cannot list (ListTasks is not on every agent) cannot say: the brief is sent
      // again with the same message id, which an agent deduplicating message ids recognises.
      if (error instanceof RemoteCallError && error.kind === 'answered') return undefined;
      throw error;
    }
    for (const candidate of listed) {
      const task = await this.#call(agent, 'GetTask', () =>
        client.getTask({ tenant: '', id: candidate.id, historyLength: undefined })
      );
      if (task.history.some((message) => message.messageId === messageId)) return task;
    }
    return undefined;
  }

  /** The agent's client, built again whenever its card changed. */
  async #client(agent: string): Promise<BuiltClient> {
    const settings = this.#agents.get(agent);
    if (settings === undefined) throw new RemoteAgentRefusedError(agent, 'it is not registered');
    const raw = await this.#cards.get(settings.cardUrl);
    const built = this.#clients.get(agent);
    if (built !== undefined && built.raw === raw) return built;
    const choice = chooseInterface(raw, { ...this.#endpoints, cardUrl: settings.cardUrl });
    if (!choice.ok) throw new RemoteAgentRefusedError(agent, choice.reason);
    const sdkCard = AgentCard.fromJSON(raw);
    // The SDK picks among the card's interfaces by its own rules: hand it the chosen one only.
    const chosen = sdkCard.supportedInterfaces.find(
      (entry) =>
        entry.url === choice.card.url && entry.protocolBinding.toUpperCase() === choice.card.binding
    );
    const fetchImpl = this.#authenticatedFetch(settings.credentials);
    const client = await new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
      ],
    }).createFromAgentCard({
      ...sdkCard,
      supportedInterfaces:
        chosen === undefined ? [] : [{ ...chosen, protocolBinding: choice.card.binding }],
    });
    const next = { raw, card: choice.card, client };
    this.#clients.set(agent, next);
    return next;
  }

  /** fetch with the agent's credentials and a timeout; an agent that is unavailable throws. */
  #authenticatedFetch(credentials: Credentials): typeof fetch {
    const authorization = async (): Promise<Record<string, string>> => {
      try {
        return await credentials.headers();
      } catch (error) {
        if (error instanceof RemoteCallError) throw error;
        // A secret that cannot be read now (Secrets Manager throttled, say): tried again later.
        throw new RemoteCallError(
          'unreachable',
          `its credentials could not be read: ${describe(error)}`,
          {
            cause: error,
          }
        );
      }
    };
    const send = async (input: Parameters<typeof fetch>[0], init: RequestInit | undefined) => {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(await authorization())) {
        headers.set(name, value);
      }
      const timeout = AbortSignal.timeout(this.#timeoutMs);
      const signal = init?.signal == null ? timeout : AbortSignal.any([timeout, init.signal]);
      try {
        // The credentials go to the card's origin alone: a redirect elsewhere is not followed.
        return await this.#fetch(input, { ...init, headers, signal, redirect: 'error' });
      } catch (error) {
        throw new RemoteCallError('unreachable', describe(error), { cause: error });
      }
    };
    return async (input, init) => {
      let response = await send(input, init);
      if (response.status === 401) {
        // An expired access token: one more try with a fresh one.
        credentials.invalidate();
        response = await send(input, init);
      }
      if (response.status >= 500 || UNAVAILABLE.has(response.status)) {
        throw new RemoteCallError('unreachable', `it answered HTTP ${response.status}`);
      }
      return response;
    };
  }

  async #call<T>(agent: string, operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const what = `${operation} on ${agent}`;
      if (error instanceof RemoteCallError) {
        const a2aError = error.a2aError === undefined ? {} : { a2aError: error.a2aError };
        throw new RemoteCallError(error.kind, `${what}: ${error.message}`, {
          cause: error,
          ...a2aError,
        });
      }
      if (error instanceof A2AError) {
        throw new RemoteCallError(
          'answered',
          `${what}: ${error.name}: ${error.message.slice(0, 300)}`,
          {
            cause: error,
            a2aError: error.name,
          }
        );
      }
      throw new RemoteCallError('garbage', `${what} answered garbage: ${describe(error)}`, {
        cause: error,
      });
    }
  }
}
