import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  callerOf,
  isPublicRoute,
  unauthorizedResponse,
} from '../../../functions/handlers/caller.js';
import { A2A_ERRORS, A2aError } from '../../../functions/service/a2a-errors.js';
import {
  checkAssertedParticipant,
  type IdentitySettings,
  ImpersonationError,
  parseBearerTokens,
  refuseAgentAsCaller,
  tokensEqual,
} from '../../../functions/service/identity.js';
import { apiGatewayEvent } from '../../support/api-gateway.js';

const eventWith = apiGatewayEvent;

const withAuthorization = (value: string, name = 'Authorization') =>
  eventWith({ headers: { [name]: value } });

const tokens: IdentitySettings = {
  mode: 'tokens',
  tokens: parseBearerTokens('tokA-0123456789=alice,tokB-0123456789=bob'),
  agentId: 'tiny-harness',
};

describe('who is calling, tokens mode (local)', () => {
  it('maps a configured bearer token to its participant', () => {
    expect(callerOf(withAuthorization('Bearer tokA-0123456789'), tokens)).toEqual({
      ok: true,
      participantId: 'alice',
    });
    expect(callerOf(withAuthorization('Bearer tokB-0123456789'), tokens)).toEqual({
      ok: true,
      participantId: 'bob',
    });
  });

  it('reads the header and the scheme case-insensitively', () => {
    expect(
      callerOf(withAuthorization('bearer   tokA-0123456789 ', 'authorization'), tokens)
    ).toEqual({ ok: true, participantId: 'alice' });
  });

  it('refuses an unknown token with an invalid_token challenge', () => {
    const result = callerOf(withAuthorization('Bearer tokC-0123456789'), tokens);
    expect(result).toMatchObject({ ok: false, status: 401 });
    expect(result.ok === false && result.challenge).toBe(
      'Bearer realm="tiny-harness", error="invalid_token"'
    );
  });

  it('refuses a request without credentials with a bare Bearer challenge', () => {
    for (const event of [
      eventWith(),
      withAuthorization(''),
      eventWith({ headers: null as never }),
    ]) {
      const result = callerOf(event, tokens);
      expect(result).toMatchObject({ ok: false, status: 401 });
      expect(result.ok === false && result.challenge).toBe('Bearer realm="tiny-harness"');
    }
  });

  it('refuses another scheme, or a malformed Bearer header', () => {
    for (const value of [
      'Basic YWxpY2U6c2VjcmV0',
      'tokA-0123456789',
      'Bearer',
      'Bearer tokA-0123456789 extra',
    ]) {
      expect(callerOf(withAuthorization(value), tokens), value).toMatchObject({
        ok: false,
        status: 401,
      });
    }
  });

  it('ignores identity asserted any other way (the interim header, Cognito claims)', () => {
    const asserted = eventWith({
      headers: { 'X-Participant-Id': 'alice' },
      requestContext: {
        stage: '',
        authorizer: { claims: { sub: 'alice' } },
      } as unknown as APIGatewayProxyEvent['requestContext'],
    });
    expect(callerOf(asserted, tokens).ok).toBe(false);
  });

  it('refuses every token when none is configured', () => {
    const none: IdentitySettings = { mode: 'tokens', tokens: new Map(), agentId: 'tiny-harness' };
    expect(callerOf(withAuthorization('Bearer anything-at-all'), none).ok).toBe(false);
  });

  it('never puts the token in the reason', () => {
    const result = callerOf(withAuthorization('Bearer secret-guess-123'), tokens);
    expect(JSON.stringify(result)).not.toContain('secret-guess-123');
  });
});

describe('tokensEqual (constant time)', () => {
  it('compares strings of different lengths without throwing', () => {
    // timingSafeEqual throws on buffers of different lengths: both sides are hashed first.
    expect(tokensEqual('short', 'a much longer token than that')).toBe(false);
    expect(tokensEqual('', 'x')).toBe(false);
    expect(tokensEqual('same-token', 'same-token')).toBe(true);
    expect(tokensEqual('same-token', 'same-tokeN')).toBe(false);
  });

  it('does not accept a prefix or an extension of a configured token', () => {
    expect(callerOf(withAuthorization('Bearer tokA-012345678'), tokens).ok).toBe(false);
    expect(callerOf(withAuthorization('Bearer tokA-01234567890'), tokens).ok).toBe(false);
  });
});

describe('who is calling, cognito mode (cloud)', () => {
  const cognito: IdentitySettings = {
    mode: 'cognito',
    tokens: new Map(),
    agentId: 'tiny-harness',
  };
  const withClaims = (claims: Record<string, unknown> | undefined) =>
    eventWith({
      requestContext: {
        stage: 'prod',
        authorizer: claims === undefined ? null : { claims },
      } as unknown as APIGatewayProxyEvent['requestContext'],
    });

  it("refuses a caller whose verified claim is the agent's own id: the agent is never a caller", () => {
    const result = callerOf(withClaims({ username: 'tiny-harness' }), cognito);
    expect(result).toMatchObject({ ok: false, status: 401 });
    expect(result.ok === false && result.reason).toBe("the agent's own id is never a caller");
  });

  it('takes cognito:username by default (an ID token)', () => {
    expect(
      callerOf(withClaims({ 'cognito:username': 'alice', username: 'x', sub: 'uuid-1' }), cognito)
    ).toEqual({ ok: true, participantId: 'alice' });
  });

  it("takes a person's username from an access token, which has no cognito:username", () => {
    expect(callerOf(withClaims({ username: 'alice', sub: 'uuid-1' }), cognito)).toEqual({
      ok: true,
      participantId: 'alice',
    });
  });

  it("falls back to sub: a client-credentials token's sub is the app client id", () => {
    expect(
      callerOf(
        withClaims({ sub: '4abc123client', client_id: '4abc123client', scope: 'tiny-harness/a2a' }),
        cognito
      )
    ).toEqual({ ok: true, participantId: '4abc123client' });
  });

  it('takes the configured claim first', () => {
    const byEmail: IdentitySettings = { ...cognito, participantClaim: 'email' };
    expect(
      callerOf(withClaims({ email: 'alice@example.com', username: 'alice' }), byEmail)
    ).toEqual({ ok: true, participantId: 'alice@example.com' });
  });

  it('refuses a request the authorizer did not verify, whatever its headers say', () => {
    for (const event of [
      withClaims(undefined),
      withClaims({}),
      withClaims({ sub: '' }),
      eventWith({ headers: { Authorization: 'Bearer tokA-0123456789' } }),
    ]) {
      expect(callerOf(event, cognito)).toMatchObject({ ok: false, status: 401 });
    }
  });
});

describe('unauthorizedResponse', () => {
  it('is a 401 with the challenge in WWW-Authenticate', () => {
    const result = callerOf(eventWith(), tokens);
    if (result.ok) throw new Error('expected a refusal');
    const response = unauthorizedResponse(result);
    expect(response.statusCode).toBe(401);
    expect(response.headers).toMatchObject({ 'WWW-Authenticate': 'Bearer realm="tiny-harness"' });
    expect(JSON.parse(response.body)).toEqual({ error: 'unauthorized', message: result.reason });
  });
});

describe('isPublicRoute', () => {
  it('is the agent card only, under any stage prefix', () => {
    const card = '/.well-known/agent-card.json';
    expect(isPublicRoute(eventWith({ httpMethod: 'GET', path: card }))).toBe(true);
    expect(isPublicRoute(eventWith({ httpMethod: 'GET', path: `/prod${card}` }))).toBe(true);
    expect(isPublicRoute(eventWith({ httpMethod: 'POST', path: card }))).toBe(false);
    expect(isPublicRoute(eventWith({ httpMethod: 'GET', path: '/tasks/t-1' }))).toBe(false);
    expect(isPublicRoute(eventWith({ httpMethod: 'POST', path: '/' }))).toBe(false);
  });
});

describe('checkAssertedParticipant', () => {
  it('accepts a message naming no participant, or the caller', () => {
    expect(checkAssertedParticipant('alice', {})).toEqual({ ok: true });
    expect(checkAssertedParticipant('alice', { metadata: { other: 1 } })).toEqual({ ok: true });
    expect(checkAssertedParticipant('alice', { metadata: { participant_id: 'alice' } })).toEqual({
      ok: true,
    });
  });

  it('refuses impersonation as InvalidParams (-32602), never rewriting it', () => {
    for (const participant_id of ['bob', '', 42, null]) {
      const result = checkAssertedParticipant('alice', { metadata: { participant_id } });
      expect(result.ok, String(participant_id)).toBe(false);
      if (result.ok) continue;
      expect(result.error).toBeInstanceOf(ImpersonationError);
      // An A2aError: the JSON-RPC dispatcher answers it as it is.
      expect(result.error).toBeInstanceOf(A2aError);
      expect(A2A_ERRORS[result.error.kind]).toMatchObject({ code: -32602, http: 400 });
      expect(result.error.message).not.toContain('bob');
    }
  });
});

describe("the agent's own id is never a caller", () => {
  it('refuses, at start, a token mapped to it, naming the id and never the token', () => {
    const mapped = parseBearerTokens('tokA-0123456789=alice,tokZ-0123456789=tiny-harness');
    expect(() => refuseAgentAsCaller(mapped, 'tiny-harness')).toThrow(
      "TINY_HARNESS_BEARER_TOKENS maps a token to tiny-harness, the agent's own id (TINY_HARNESS_AGENT_ID): the agent is never a caller"
    );
    expect(() => refuseAgentAsCaller(mapped, 'another-agent')).not.toThrow();
  });

  it('refuses such a token at resolution too, should one reach it', () => {
    const settings: IdentitySettings = {
      mode: 'tokens',
      tokens: parseBearerTokens('tokZ-0123456789=tiny-harness'),
      agentId: 'tiny-harness',
    };
    expect(callerOf(withAuthorization('Bearer tokZ-0123456789'), settings)).toMatchObject({
      ok: false,
      status: 401,
    });
  });
});

describe('parseBearerTokens', () => {
  it('reads token=participant pairs, trimming around them', () => {
    expect([...parseBearerTokens(' tokA=alice , tokB=bob ,')]).toEqual([
      ['tokA', 'alice'],
      ['tokB', 'bob'],
    ]);
    expect(parseBearerTokens('').size).toBe(0);
  });

  it('lets a token end in base64 padding: the last "=" separates', () => {
    expect([...parseBearerTokens('YWJjZA===alice')]).toEqual([['YWJjZA==', 'alice']]);
  });

  it('refuses malformed entries without quoting a token', () => {
    for (const [text, message] of [
      ['tokA', /entry 1 is not token=participant/],
      ['tokA=alice,=bob', /entry 2 is not token=participant/],
      ['tokA=', /entry 1 is not token=participant/],
      ['tok A=alice', /entry 1 has whitespace/],
      ['tokA=alice,tokA=bob', /entry 2 repeats a token/],
    ] as const) {
      expect(() => parseBearerTokens(text), text).toThrow(message);
      try {
        parseBearerTokens(text);
      } catch (error) {
        expect((error as Error).message).not.toMatch(/tok ?A|alice|bob/);
      }
    }
  });
});
