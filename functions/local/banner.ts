/** What `npm start` prints once it is up: where it is, as whom to call it, and what to try first. */
export interface BannerFacts {
  url: string;
  seconds: number;
  /** The model in use, as people read it (provider, model id, base URL). */
  model: string;
  /** `--profile`, when one was given. */
  profile?: string | undefined;
  /** How a client's task runs: `conversation` or `delegated`. */
  lifecycle: string;
  stateMachineArn: string;
  data: string;
  /** The generated token, or undefined when the tokens came from TINY_HARNESS_BEARER_TOKENS. */
  token: string | undefined;
  endpointFile: string;
  /** The remote agents of TINY_HARNESS_REMOTE_AGENTS, one line each (describeRegistration). */
  remoteAgents?: readonly string[];
  /** The agent's tools beyond its own: the MCP servers, or the sample one and what to try. */
  tools?: string | undefined;
  /** The participant the web page acts as (the first token's when they are configured). */
  webParticipant: string | null;
  /** The budgets new tasks start with, and what they cannot cap (defaultBudgetsNotice). */
  budgets?: { line: string; warning?: string } | undefined;
  /** The ports of the stack's own endpoints on 127.0.0.1 (LocalStack.internalPorts). */
  internalPorts?: { dynamodb: number; stepFunctions: number } | undefined;
}

/**
 * Where each endpoint listens and who may call it: everything on 127.0.0.1 and answering only to
 * its own Host; the stack's own endpoints at a secret path besides, never printed.
 */
const boundLines = (url: string, ports: NonNullable<BannerFacts['internalPorts']>): string[] => [
  '  bound to       127.0.0.1 only, answering only to Host 127.0.0.1, localhost or [::1]:',
  `                 :${new URL(url).port} the A2A endpoint and the web page`,
  `                 :${ports.dynamodb} DynamoDB Local, :${ports.stepFunctions} Step Functions (the stack's own, at a path only this run knows)`,
];

const headers = (token: string) =>
  `-H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -H 'Authorization: Bearer ${token}'`;

/** The two curl lines of the banner: a first message, then a second one to the same task. */
export const curlExamples = (url: string, token: string): [string, string] => [
  `TASK=$(curl -s ${url}/message:send ${headers(token)} \\\n    -d '{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"Hello!"}]}}' \\\n    | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).task.id')`,
  `curl -sN ${url}/message:stream ${headers(token)} \\\n    -d '{"message":{"messageId":"m-2","taskId":"'"$TASK"'","role":"ROLE_USER","parts":[{"text":"Hello again!"}]}}'`,
];

/**
 * What to type to see each part of the product on the built-in demo model (it answers these
 * words the same way every time: functions/adapters/model/demo-tour.ts, demo-model.ts); the notes
 * only when the sample notes server is the one running.
 */
export const demoTourLines = (sampleNotes: boolean): string[] => [
  'With the demo model, say (in the chat or on the page):',
  '  plan a trip to Lisbon   a plan of three steps, one given to a sub-task that meets its acceptance',
  '                          criterion with evidence, then a question for you (answer it to finish)',
  ...(sampleNotes
    ? [
        '  note buy milk           a call to the sample notes server; then "delete note n1", which waits',
        '                          for your approval (/approve in the chat, a button on the page)',
      ]
    : []),
];

/** The demo model and the sample server name themselves so (functions/local/start.ts). */
const onDemoModel = (facts: BannerFacts) => /\bdemo model\b/.test(facts.model);
const onSampleNotes = (facts: BannerFacts) => facts.tools?.startsWith('notes, the sample') === true;

export const banner = (facts: BannerFacts): string => {
  const token = facts.token ?? '<a token from TINY_HARNESS_BEARER_TOKENS>';
  const [first, second] = curlExamples(facts.url, token);
  return [
    `tiny-harness is up in ${facts.seconds.toFixed(1)} s`,
    `  A2A endpoint   ${facts.url}/  (A2A 1.0: JSON-RPC at /, HTTP+JSON routes, SSE streams)`,
    `  web page       ${facts.url}/  (in a browser, as ${facts.webParticipant === null ? 'the first configured token' : `"${facts.webParticipant}"`})`,
    `  agent card     ${facts.url}/.well-known/agent-card.json`,
    `  model          ${facts.model}`,
    ...(facts.tools === undefined ? [] : [`  tools          ${facts.tools}`]),
    ...(facts.profile === undefined ? [] : [`  profile        ${facts.profile}`]),
    `  tasks          ${facts.lifecycle === 'delegated' ? 'delegated: worked to their end and completed' : 'conversations: each parks for your next message'}`,
    ...(facts.budgets === undefined
      ? []
      : [
          `  budgets        ${facts.budgets.line}`,
          ...(facts.budgets.warning === undefined
            ? []
            : [`                 (${facts.budgets.warning})`]),
        ]),
    `  state machine  ${facts.stateMachineArn}`,
    `  data           ${facts.data}`,
    ...(facts.internalPorts === undefined ? [] : boundLines(facts.url, facts.internalPorts)),
    `  caller         ${facts.token === undefined ? 'tokens from TINY_HARNESS_BEARER_TOKENS' : `bearer token ${facts.token} (participant "you")`}`,
    `  endpoint file  ${facts.endpointFile} (the URL and token, for npx tiny-harness)`,
    ...(facts.remoteAgents ?? []).map(
      (line, index) => `  ${index === 0 ? 'remote agents ' : '              '} ${line}`
    ),
    '',
    `Talk to it: open ${facts.url}/ in a browser, or, in another terminal:`,
    '  npx tiny-harness chat',
    '',
    ...(onDemoModel(facts) ? [...demoTourLines(onSampleNotes(facts)), ''] : []),
    'Or with curl: a first message, then a second one to the same task, streamed:',
    `  ${first}`,
    `  ${second}`,
    '',
    'Ctrl-C stops everything.',
  ].join('\n');
};
