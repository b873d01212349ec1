import { createHash } from 'node:crypto';
import { RemoteAgentRefusedError, RemoteCallError } from '../../core/errors.js';
import type {
  AgentDirectory,
  ChildCreated,
  ChildRequest,
  RegisteredAgent,
} from '../../core/ports/agent-directory.js';
import type { Clock } from '../../core/ports/clock.js';
import type { Logger } from '../../core/ports/logger.js';
import type { BriefAnswer, PushTarget, RemoteAgents } from '../../core/ports/remote-agents.js';
import type { RemoteFollowers } from '../../core/ports/remote-followers.js';
import type { RemoteLinks } from '../../core/ports/remote-links.js';
import { remoteBrief } from '../../core/remote/remote-brief.js';
import {
  childIdOf,
  creatingLink,
  failed,
  observed,
  type RemoteLink,
} from '../../core/remote/remote-link.js';
import { snapshotOf, snapshotOfMessage } from '../../core/remote/remote-snapshot.js';
import { remotePushPath } from '../../core/remote/webhook-path.js';
import { stateFromName } from '../../core/task/a2a-task.js';
import { newPushToken, tokenHashOf } from './push-token.js';

/** The link of the child a brief creates: the same parent and message id give the same link. */
export const linkIdOf = (parentId: string, messageId: string): string =>
  createHash('sha256').update(`${parentId}\u0000${messageId}`).digest('hex').slice(0, 32);

/** Attempts at sending a brief, and the waits between them, before the child fails. */
const SEND_WAITS_MS = [500, 1_500];

/** A retried creation looks for the first attempt's task among those changed since a bit before. */
const CLOCK_SKEW_MS = 5 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const created = (link: RemoteLink): ChildCreated => ({
  taskId: childIdOf(link),
  state: stateFromName(link.state),
  subState: link.subState ?? undefined,
});

/**
 * Every child's agent: this harness (agent null: `self`), or a registered remote agent, which
 * gets the brief by SendMessage with the official A2A client, and whose task a stand-in (a
 * follower execution) follows from then on. The child's link is written before the brief goes
 * out and is keyed by the brief's message id, so a retried creation finds the child the first
 * attempt made (or, when that attempt died after sending, asks the agent for it) and never makes
 * a second one. An agent that cannot take the brief (down, refused, garbage) gives a child that
 * has FAILED with the reason, never an error that would fail the parent's turn.
 */
export class RemoteAgentDirectory implements AgentDirectory {
  readonly #self: AgentDirectory;
  readonly #remote: RemoteAgents;
  readonly #links: RemoteLinks;
  readonly #followers: RemoteFollowers;
  readonly #clock: Clock;
  readonly #webhookBase: () => string | undefined;
  readonly #logger: Logger | undefined;
  readonly #waits: readonly number[];

  constructor(options: {
    self: AgentDirectory;
    remote: RemoteAgents;
    links: RemoteLinks;
    followers: RemoteFollowers;
    clock: Clock;
    /** Our public base URL, where remote agents push (unset: children are polled). */
    webhookBase: () => string | undefined;
    logger?: Logger;
    /** Waits between attempts at sending a brief (tests shorten them). */
    sendWaitsMs?: readonly number[];
  }) {
    this.#self = options.self;
    this.#remote = options.remote;
    this.#links = options.links;
    this.#followers = options.followers;
    this.#clock = options.clock;
    this.#webhookBase = options.webhookBase;
    this.#logger = options.logger;
    this.#waits = options.sendWaitsMs ?? SEND_WAITS_MS;
  }

  agents(): readonly RegisteredAgent[] {
    return this.#remote.list().map(({ id, description }) => ({ id, description }));
  }

  async createChild(request: ChildRequest): Promise<ChildCreated> {
    if (request.agent === null) return this.#self.createChild(request);
    const parentId = request.parentTaskId;
    const agent = request.agent;
    const { messageId } = request.message;
    const linkId = linkIdOf(parentId, messageId);
    const known = await this.#links.get(parentId, linkId);
    if (known !== undefined && known.phase !== 'creating') return created(known);

    let link = known;
    let outcome: RemoteLink;
    try {
      const card = await this.#remote.card(agent);
      let push: PushTarget | undefined;
      if (link === undefined) {
        const base = this.#webhookBase();
        const token =
          (this.#remote.get(agent)?.push ?? false) && card.push && base !== undefined
            ? newPushToken()
            : undefined;
        link = await this.#links.create(
          creatingLink({
            parentId,
            linkId,
            agent,
            messageId,
            delivery: token === undefined ? 'poll' : 'push',
            tokenHash: token === undefined ? null : tokenHashOf(token),
            now: this.#clock.now(),
          })
        );
        // The token is known only to the attempt whose link was stored.
        if (token !== undefined && link.tokenHash === tokenHashOf(token)) {
          push = { url: `${base}${remotePushPath(parentId, linkId)}`, token };
        }
      }
      outcome =
        link.phase === 'creating'
          ? await this.#sent(
              link,
              remoteBrief(request.message, card, parentId),
              push,
              known !== undefined
            )
          : link;
    } catch (error) {
      if (!(error instanceof RemoteCallError || error instanceof RemoteAgentRefusedError)) {
        throw error;
      }
      link ??= await this.#links.create(
        creatingLink({
          parentId,
          linkId,
          agent,
          messageId,
          delivery: 'poll',
          tokenHash: null,
          now: this.#clock.now(),
        })
      );
      outcome = failed(link, `agent ${agent} did not take the sub-task: ${error.message}`);
    }
    if (outcome === link) return created(link);
    const stored = await this.#links.update({ ...outcome, version: link.version + 1 });
    this.#logger?.info('remote child created', {
      taskId: parentId,
      agent,
      childId: childIdOf(stored),
      state: stored.state,
      delivery: stored.delivery,
    });
    await this.#followers.start({ parentId, linkId }, 1);
    return created(stored);
  }

  /**
   * The link once the brief is sent. A retried creation (`retry`) first asks the agent for the
   * task its first attempt may have made. An agent that refuses our webhook is sent the brief
   * again without it, and polled; one that cannot be reached is tried again a few times.
   */
  async #sent(
    link: RemoteLink,
    brief: ChildRequest['message'],
    push: PushTarget | undefined,
    retry: boolean
  ): Promise<RemoteLink> {
    const { agent } = link;
    const polled = { delivery: 'poll' as const, tokenHash: null };
    if (retry) {
      const since = new Date(Date.parse(link.createdAt) - CLOCK_SKEW_MS).toISOString();
      const earlier = await this.#remote.findTask(agent, link.messageId, since);
      if (earlier !== undefined) {
        return { ...observed(link, snapshotOf(earlier, earlier.id), earlier.id), ...polled };
      }
    }
    let target = push;
    let answer: BriefAnswer | undefined;
    for (let attempt = 0; answer === undefined; attempt++) {
      try {
        answer = await this.#remote.send(agent, brief, target);
      } catch (error) {
        if (!(error instanceof RemoteCallError)) throw error;
        if (error.kind === 'answered' && target !== undefined) {
          this.#logger?.warn('remote agent refused our webhook: its child is polled', {
            agent,
            errorMessage: error.message,
          });
          target = undefined;
          continue;
        }
        const wait = this.#waits[attempt];
        if (error.kind === 'answered' || wait === undefined) throw error;
        await sleep(wait);
      }
    }
    // Read once the brief is taken: an answer that is garbage is not sent again (it may be a task).
    const next =
      answer.kind === 'message'
        ? observed(link, snapshotOfMessage(answer.message), null)
        : observed(link, snapshotOf(answer.task, answer.task.id), answer.task.id);
    return target === undefined ? { ...next, ...polled } : next;
  }
}
