import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactMessage, redactSecrets } from '../../../functions/core/intake/redact.js';
import { textMessage } from '../../support/messages.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const from = (alphabet: string, minLength: number, maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength, maxLength }).map((chars) => chars.join(''));

/** Secrets in the shapes their issuers use; `secret` is what must not survive. */
const secretArb = fc.oneof(
  from(`${ALNUM}_-`, 20, 60).map((body) => ({ text: `sk-${body}`, secret: `sk-${body}` })),
  from(`${ALNUM}_-`, 40, 160).map((body) => ({ text: `sk-proj-${body}`, secret: body })),
  from(`${ALNUM}_-`, 80, 100).map((body) => ({ text: `sk-ant-api03-${body}`, secret: body })),
  fc
    .tuple(fc.constantFrom('AKIA', 'ASIA'), from(UPPER_DIGITS, 16, 16))
    .map(([prefix, body]) => ({ text: `${prefix}${body}`, secret: `${prefix}${body}` })),
  fc
    .tuple(
      fc.constantFrom(
        'aws_secret_access_key=',
        'AWS_SECRET_ACCESS_KEY = ',
        'aws_secret_access_key: ',
        '"SecretAccessKey": "',
        'secret-access-key='
      ),
      from(`${ALNUM}/+`, 40, 40)
    )
    .map(([name, value]) => ({ text: `${name}${value}`, secret: value })),
  fc
    .tuple(fc.constantFrom('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'), from(ALNUM, 36, 36))
    .map(([prefix, body]) => ({ text: `${prefix}${body}`, secret: body })),
  from(`${ALNUM}_`, 82, 82).map((body) => ({ text: `github_pat_${body}`, secret: body })),
  // An opaque token, or a JWT (three base64url parts).
  fc
    .oneof(
      from(`${ALNUM}-._~+/`, 20, 80),
      fc
        .tuple(from(`${ALNUM}-_`, 10, 40), from(`${ALNUM}-_`, 10, 80), from(`${ALNUM}-_`, 10, 43))
        .map(([header, payload, signature]) => `eyJ${header}.${payload}.${signature}`)
    )
    .chain((token) =>
      fc
        .constantFrom('Bearer ', 'bearer ', 'Authorization: Bearer ', 'BEARER\t')
        .map((scheme) => ({ text: `${scheme}${token}`, secret: token }))
    )
);

/**
 * Ordinary prose, with the near misses a pattern could trip on: the word "bearer" followed by
 * ordinary words, hyphenated words starting with "sk-", the bare prefixes, short numbers.
 */
const wordArb = fc.oneof(
  from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 1, 12),
  fc.constantFrom(
    'bearer',
    'Bearer',
    'sk-learn',
    'risk-taking',
    'task-list',
    'AKIA',
    'ASIA',
    'ghp',
    'github',
    'secret',
    'access',
    'key',
    'v1.0',
    'e.g.',
    '42',
    '2026',
    'don\u2019t',
    '\u00e9t\u00e9'
  )
);
const separatorArb = fc.constantFrom(' ', ', ', '. ', '\n', ': ', ' (', ') ', ' "', '" ');
const proseArb = fc
  .array(fc.tuple(wordArb, separatorArb), { maxLength: 30 })
  .map((parts) => parts.map(([word, separator]) => `${word}${separator}`).join(''));

describe('redactSecrets (properties)', () => {
  it('no generated secret survives, wherever it sits in prose', () => {
    fc.assert(
      fc.property(
        proseArb,
        secretArb,
        proseArb,
        separatorArb,
        (before, secret, after, separator) => {
          const text = `${before}${separator}${secret.text}${separator}${after}`;
          const masked = redactSecrets(text);
          expect(masked).not.toContain(secret.secret);
          expect(masked).toContain(REDACTED);
        }
      ),
      { numRuns: 500 }
    );
  });

  it('no configured secret survives, however often it occurs', () => {
    fc.assert(
      fc.property(
        proseArb,
        fc.string({ minLength: 8, maxLength: 40 }),
        fc.integer({ min: 1, max: 3 }),
        (prose, secret, times) => {
          const text = Array.from({ length: times }, () => secret).join(prose);
          expect(redactSecrets(text, [secret])).not.toContain(secret);
        }
      ),
      { numRuns: 300 }
    );
  });

  it('ordinary text is unchanged', () => {
    fc.assert(
      fc.property(proseArb, (text) => {
        // Configured secrets that do not occur change nothing either.
        expect(redactSecrets(text, ['#not-in-prose#', 'x9#y8#z7'])).toBe(text);
      }),
      { numRuns: 1000 }
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(proseArb, secretArb, (prose, secret) => {
        const once = redactSecrets(`${prose} ${secret.text}`);
        expect(redactSecrets(once)).toBe(once);
      })
    );
  });
});

describe('redactSecrets (examples)', () => {
  it('masks each kind, keeping what names it', () => {
    const cases: Array<[string, string]> = [
      ['my key is sk-abcdefghijklmnopqrstuvwx1234', `my key is ${REDACTED}`],
      ['OPENAI_API_KEY=sk-proj-AbC_dEf-123456789012345678', `OPENAI_API_KEY=${REDACTED}`],
      [
        'ANTHROPIC_API_KEY="sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-AA"',
        `ANTHROPIC_API_KEY="${REDACTED}"`,
      ],
      [
        'id AKIAIOSFODNN7EXAMPLE, session ASIAY34FZKBOKMUTVV7A.',
        `id ${REDACTED}, session ${REDACTED}.`,
      ],
      [
        'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        `aws_secret_access_key = ${REDACTED}`,
      ],
      [
        '{"AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}',
        `{"AccessKeyId": "${REDACTED}", "SecretAccessKey": "${REDACTED}"}`,
      ],
      ['token ghp_0123456789abcdefghijABCDEFGHIJ012345 ok', `token ${REDACTED} ok`],
      ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', REDACTED],
      [
        'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"',
        `curl -H "Authorization: Bearer ${REDACTED}"`,
      ],
      ['use bearer tok3n-abc please', `use bearer ${REDACTED} please`],
    ];
    for (const [text, expected] of cases) expect(redactSecrets(text), text).toBe(expected);
  });

  it('leaves words that only look close', () => {
    for (const text of [
      'the bearer of bad news',
      'Bearer bonds and bearer responsibilities',
      'we use sk-learn and risk-taking task-list items',
      'AKIA alone, or AKIAshort, is not a key id',
      'ghp_short is not a token',
      'the secret access key is in the vault',
      'a task-id like task-123 or ctx-abc stays',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('masks configured secrets verbatim, longest first, ignoring ones too short to be secrets', () => {
    expect(redactSecrets('pass: hunter2-and-more', ['hunter2-and-more', 'hunter2-'])).toBe(
      `pass: ${REDACTED}`
    );
    expect(redactSecrets('a b c', ['a', 'short'])).toBe('a b c');
  });
});

describe('redactMessage', () => {
  const dataPart = (value: unknown, mediaType = 'application/json') => ({
    content: { $case: 'data' as const, value },
    metadata: undefined,
    filename: '',
    mediaType,
  });

  it('masks the text parts of a copy and leaves the original untouched', () => {
    const message = textMessage('my key is AKIAIOSFODNN7EXAMPLE');
    const masked = redactMessage(message, ['configured-secret']);
    expect(masked.parts[0]!.content).toEqual({ $case: 'text', value: `my key is ${REDACTED}` });
    expect(masked.messageId).toBe(message.messageId);
    expect(message.parts[0]!.content).toEqual({
      $case: 'text',
      value: 'my key is AKIAIOSFODNN7EXAMPLE',
    });
  });

  it('masks a task envelope’s name, goal, description and acceptance criteria as it masks text, keeping its shape (issue 9, item 6)', () => {
    const envelope = {
      kind: 'task',
      payload: {
        name: 'Rotate AKIAIOSFODNN7EXAMPLE',
        goal: 'Use token configured-secret-123 to deploy',
        description: 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abcdefghijklmnop',
        acceptance_criteria: [
          { text: 'ghp_0123456789abcdefghijABCDEFGHIJ012345 no longer works', met: false },
        ],
        participants: [{ id: 'alice', kind: 'human', role: 'reporter' }],
      },
    };
    const message = {
      ...textMessage(''),
      parts: [dataPart(envelope, 'application/vnd.tiny-harness.event+json')],
    };

    const masked = redactMessage(message, ['configured-secret-123']);

    expect(masked.parts[0]!.content).toEqual({
      $case: 'data',
      value: {
        kind: 'task',
        payload: {
          name: `Rotate ${REDACTED}`,
          goal: `Use token ${REDACTED} to deploy`,
          description: `Authorization: Bearer ${REDACTED}`,
          acceptance_criteria: [{ text: `${REDACTED} no longer works`, met: false }],
          participants: [{ id: 'alice', kind: 'human', role: 'reporter' }],
        },
      },
    });
    expect(JSON.stringify(message.parts[0])).toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('leaves numbers, booleans, null and keys of a data part as they are', () => {
    const value = { count: 3, ok: true, none: null, AKIAIOSFODNN7EXAMPLE: 'key as a name' };
    const masked = redactMessage({ ...textMessage(''), parts: [dataPart(value)] });
    expect(masked.parts[0]!.content).toEqual({ $case: 'data', value });
  });

  it('masks a data part nested far deeper than the call stack goes, as a copy of the same shape', () => {
    const depth = 100_000;
    let value: unknown = ['AKIAIOSFODNN7EXAMPLE'];
    for (let level = 0; level < depth; level++) value = { a: value };

    const masked = redactMessage({ ...textMessage(''), parts: [dataPart(value)] });

    let inner = (masked.parts[0]!.content as { value: unknown }).value;
    for (let level = 0; level < depth; level++) inner = (inner as { a: unknown }).a;
    expect(inner).toEqual([REDACTED]);
  });

  it('keeps a `__proto__` key of a data part as a key, not as the copy’s prototype', () => {
    const value = JSON.parse(
      '{"__proto__": {"polluted": "ghp_0123456789abcdefghijABCDEFGHIJ012345"}}'
    );
    const masked = (
      redactMessage({ ...textMessage(''), parts: [dataPart(value)] }).parts[0]!.content as {
        value: Record<string, unknown>;
      }
    ).value;
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(Object.hasOwn(masked, '__proto__')).toBe(true);
    expect(JSON.stringify(masked)).toBe(`{"__proto__":{"polluted":"${REDACTED}"}}`);
  });
});
