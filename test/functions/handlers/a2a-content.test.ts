import { describe, expect, it } from 'vitest';
import { EVENT_MEDIA_TYPE } from '../../../functions/core/a2a/identifiers.js';
import { MAX_JSON_DEPTH } from '../../../functions/handlers/a2a/json-depth.js';
import { MAX_MESSAGE_PARTS } from '../../../functions/handlers/a2a/request-params.js';
import { ALICE } from '../../support/harness.js';
import { a2aSetup, BINDINGS, type BindingName, type Outcome } from './a2a-calls.js';

/**
 * What a message may carry, and how much (issue 24): the agent keeps text parts and one task
 * envelope; anything else a message can hold would be dropped on its way to the transcript, so it
 * is refused, naming the field, with -32602 / 400 and nothing stored. Depth and part count are
 * bounded before anything walks the request.
 */

const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

const fieldsOf = (outcome: Outcome): string[] =>
  ((outcome.error?.data ?? outcome.error?.details ?? []) as Array<Record<string, unknown>>)
    .filter((detail) => detail['@type'] === BAD_REQUEST)
    .flatMap((detail) => (detail.fieldViolations as Array<{ field: string }>).map((v) => v.field));

const user = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  messageId: `m-${Math.random()}`,
  role: 'ROLE_USER',
  parts,
  ...extra,
});

/** Sends a SendMessage whose params are written as raw JSON text (deep values need it). */
const sendRaw = async (binding: BindingName, paramsJson: string) => {
  const setup = a2aSetup([{ text: 'Hi.' }]);
  const headers = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
  const authorization = { Authorization: 'Bearer test-token-alice' };
  const response = await setup.rawCall(
    binding === 'JSON-RPC'
      ? {
          headers: { ...headers, ...authorization },
          body: `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${paramsJson}}`,
        }
      : { path: '/message:send', headers: { ...headers, ...authorization }, body: paramsJson }
  );
  const json = JSON.parse(response.body as string) as { error?: Outcome['error'] };
  const outcome: Outcome = {
    status: response.statusCode,
    headers: {},
    raw: response.body as string,
    ...(json.error === undefined ? { result: json as Outcome['result'] } : { error: json.error }),
  };
  return { setup, outcome };
};

const send = async (binding: BindingName, params: unknown) =>
  sendRaw(binding, JSON.stringify(params));

const expectRefused = async (
  binding: BindingName,
  { setup, outcome }: Awaited<ReturnType<typeof send>>,
  field: string
) => {
  if (binding === 'JSON-RPC') expect(outcome.error?.code).toBe(-32602);
  else expect(outcome.status).toBe(400);
  expect(fieldsOf(outcome)).toContain(field);
  expect(await setup.harness.store.list({ participantId: ALICE })).toEqual([]);
};

const expectAccepted = async (
  binding: BindingName,
  { setup, outcome }: Awaited<ReturnType<typeof send>>
) => {
  expect(outcome.error, outcome.raw).toBeUndefined();
  expect(binding === 'JSON-RPC' ? outcome.status : outcome.status).toBe(200);
  expect(await setup.harness.store.list({ participantId: ALICE })).toHaveLength(1);
};

/** JSON `levels` objects deep around `inner`, written as text: JSON.stringify would recurse. */
const nested = (levels: number, inner = '"x"') =>
  `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;

describe.each(BINDINGS)('a message over %s', (binding) => {
  const immediately = { returnImmediately: true };

  it.each([
    ['a file part given as bytes', { raw: 'aGVsbG8=' }, 'message.parts[1]'],
    ['a file part given as a URL', { url: 'https://example.com/a.txt' }, 'message.parts[1]'],
    ['a data part', { data: { x: 1 } }, 'message.parts[1]'],
    [
      'a data part of another media type',
      { data: [1], mediaType: 'text/plain' },
      'message.parts[1]',
    ],
    ['a part with metadata', { text: 'b', metadata: { k: 'v' } }, 'message.parts[1].metadata'],
    ['a text part with a filename', { text: 'b', filename: 'b.txt' }, 'message.parts[1].filename'],
  ])('refuses %s, naming it, and stores nothing', async (_, part, field) => {
    const sent = await send(binding, {
      message: user([{ text: 'a' }, part]),
      configuration: immediately,
    });
    await expectRefused(binding, sent, field);
    expect(sent.outcome.error?.message).toContain(field);
  });

  it('says which parts it keeps when it refuses one', async () => {
    const sent = await send(binding, { message: user([{ data: {} }]), configuration: immediately });
    expect(sent.outcome.error?.message).toContain(`a data part of media type ${EVENT_MEDIA_TYPE}`);
  });

  it('refuses message metadata other than participant_id, the referenced tasks and the request metadata', async () => {
    const sent = await send(binding, {
      message: user([{ text: 'a' }], {
        metadata: { participant_id: ALICE, trace: 't-1' },
        referenceTaskIds: ['t-0'],
      }),
      configuration: immediately,
      metadata: { client: 'x' },
    });
    await expectRefused(binding, sent, 'message.metadata.trace');
    expect(fieldsOf(sent.outcome)).toEqual([
      'message.metadata.trace',
      'message.referenceTaskIds',
      'metadata',
    ]);
  });

  it('takes text parts, its own participant id and a task envelope', async () => {
    const envelope = {
      data: { kind: 'task', payload: { name: 'n', goal: 'g' } },
      mediaType: EVENT_MEDIA_TYPE,
    };
    const sent = await send(binding, {
      message: user([{ text: 'a' }, envelope], { metadata: { participant_id: ALICE } }),
      configuration: immediately,
    });
    await expectAccepted(binding, sent);
  });

  it('answers a part of a media type it does not read with ContentTypeNotSupported first (§3.1.1)', async () => {
    const { outcome } = await send(binding, {
      message: user([{ raw: 'dGNr', mediaType: 'application/x-unsupported-tck-type' }]),
      configuration: immediately,
    });
    if (binding === 'JSON-RPC') expect(outcome.error?.code).toBe(-32005);
    else
      expect(outcome.error?.details?.[0]).toMatchObject({ reason: 'CONTENT_TYPE_NOT_SUPPORTED' });
  });

  it(`takes ${MAX_MESSAGE_PARTS} parts and refuses one more`, async () => {
    const parts = (count: number) => Array.from({ length: count }, (_, i) => ({ text: `p${i}` }));
    await expectAccepted(
      binding,
      await send(binding, { message: user(parts(MAX_MESSAGE_PARTS)), configuration: immediately })
    );
    const over = await send(binding, {
      message: user(parts(MAX_MESSAGE_PARTS + 1)),
      configuration: immediately,
    });
    await expectRefused(binding, over, 'message.parts');
    expect(over.outcome.error?.message).toContain(`at most ${MAX_MESSAGE_PARTS} parts`);
  });

  it(`refuses JSON nested more than ${MAX_JSON_DEPTH} levels, however deep, naming where`, async () => {
    // The envelope part sits 4 levels down (params, message, parts, the part): its data is the 5th.
    const envelopeAt = (data: string) =>
      `{"message":{"messageId":"m-deep","role":"ROLE_USER","parts":[{"data":${data},"mediaType":"${EVENT_MEDIA_TYPE}"}]},"configuration":{"returnImmediately":true}}`;
    // 150,000 levels is about as deep as a 1 MiB body goes.
    for (const levels of [MAX_JSON_DEPTH - 3, 3_000, 150_000]) {
      const sent = await sendRaw(binding, envelopeAt(nested(levels)));
      await expectRefused(binding, sent, 'message.parts[0].data…');
      expect(sent.outcome.error?.message).toContain(
        `nested more than ${MAX_JSON_DEPTH} levels deep`
      );
    }
    const deepMetadata = await sendRaw(
      binding,
      `{"message":{"messageId":"m-meta","role":"ROLE_USER","parts":[{"text":"a"}],"metadata":${nested(3_000)}}}`
    );
    await expectRefused(binding, deepMetadata, 'message.metadata.a.a…');
  });

  it(`reads a data part as deep as ${MAX_JSON_DEPTH} levels allow`, async () => {
    // 4 levels above the data, 60 in it: the envelope is refused for its shape, not its depth.
    const sent = await sendRaw(
      binding,
      `{"message":{"messageId":"m-deep","role":"ROLE_USER","parts":[{"data":${nested(MAX_JSON_DEPTH - 4)},"mediaType":"${EVENT_MEDIA_TYPE}"}]},"configuration":{"returnImmediately":true}}`
    );
    if (binding === 'JSON-RPC') expect(sent.outcome.error?.code).toBe(-32602);
    expect(sent.outcome.error?.message).not.toContain('nested');
    expect(sent.outcome.error?.message).toContain('envelope');
  });
});
