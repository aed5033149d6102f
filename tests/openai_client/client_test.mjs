// OpenAI's own Node.js client (npm openai, version 6) against kael's server (chapter 13):
// every endpoint and option the server has, called as a user of the SDK calls it, whole and
// streamed, and the errors the SDK raises for what the server refuses. Prints "ok: ..." or
// "FAIL: ..." per check and exits 1 on any failure.
//
//   node client_test.mjs BASE_URL MODEL_NAME CLIENT_DIR
//
// CLIENT_DIR holds node_modules/openai (scripts/fetch-openai-client installs it there).
import { createRequire } from 'node:module';
import path from 'node:path';

const [baseURL, model, clientDir] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(clientDir), 'node_modules', 'noop.js'));
const OpenAI = require('openai').default;
const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: 'not-checked', maxRetries: 0, timeout: 60_000 });

let failures = 0;
function check(condition, what) {
  console.log(`${condition ? 'ok' : 'FAIL'}: ${what}`);
  if (!condition) failures += 1;
}

async function refusal(call) {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return null;
}

async function collect(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

// The model endpoints.
const listed = [];
for await (const entry of client.models.list()) listed.push(entry.id);
check(listed.length === 1 && listed[0] === model, `models.list() gives [${model}]`);
check((await client.models.retrieve(model)).id === model, 'models.retrieve() finds the served model');
const missing = await refusal(() => client.models.retrieve('gpt-4'));
check(missing instanceof OpenAI.NotFoundError && missing.code === 'model_not_found',
  'models.retrieve() of another model raises NotFoundError with code model_not_found');

// Completions, whole and streamed; a seed gives the same text both ways.
const request = { model, prompt: 'The tensor is', max_tokens: 12, seed: 5, temperature: 0.9 };
const whole = await client.completions.create(request);
check(whole.object === 'text_completion' && typeof whole.choices[0].text === 'string' &&
  whole.usage.total_tokens === whole.usage.prompt_tokens + whole.usage.completion_tokens,
  'completions.create() returns a text_completion with usage');
const chunks = await collect(await client.completions.create({
  ...request, stream: true, stream_options: { include_usage: true } }));
const streamedText = chunks.filter((c) => c.choices.length).map((c) => c.choices[0].text).join('');
check(streamedText === whole.choices[0].text, 'a streamed completion joins into the whole one');
const last = chunks[chunks.length - 1];
check(last.choices.length === 0 && last.usage?.completion_tokens === whole.usage.completion_tokens,
  'stream_options.include_usage: the last chunk has no choices and the usage');
const stopped = await client.completions.create({ ...request, stop: ['\n'] });
check(!stopped.choices[0].text.includes('\n'), 'stop strings end the text before them');
const fromIds = await client.completions.create({ model, prompt: [464, 11192, 318], max_tokens: 4, seed: 1 });
check(fromIds.usage.prompt_tokens === 3, 'a prompt given as token ids');
const several = await client.completions.create({ model, prompt: ['Hello', 'The tensor is'], n: 2, max_tokens: 4, seed: 7 });
check(several.choices.length === 4 && several.choices.map((c) => c.index).join() === '0,1,2,3',
  'a list of prompts with n: 2 gives four indexed choices');
const wrongModel = await refusal(() => client.completions.create({ ...request, model: 'gpt-4' }));
check(wrongModel instanceof OpenAI.NotFoundError && wrongModel.code === 'model_not_found',
  'a completion for another model raises NotFoundError');
const badTokens = await refusal(() => client.completions.create({ ...request, max_tokens: 0 }));
check(badTokens instanceof OpenAI.BadRequestError && badTokens.param === 'max_tokens',
  'max_tokens 0 raises BadRequestError naming the parameter');

// Log-probabilities, whole and streamed; echo, and a prompt scored without a completion.
const codePoints = (text) => [...text].length;
const scored = await client.completions.create({ ...request, logprobs: 2, user: 'sdk-test' });
const lp = scored.choices[0].logprobs;
check(lp && lp.tokens.length === scored.usage.completion_tokens && lp.token_logprobs.every((x) => x <= 0) &&
  lp.top_logprobs.every((top, i) => lp.tokens[i] in top && Object.keys(top).length >= 2 && Object.keys(top).length <= 3) &&
  scored.choices[0].text === whole.choices[0].text,
  'logprobs: 2 gives every token its log-probability and two alternatives, itself among them, and the same text');
check(lp.text_offset[0] === codePoints(request.prompt) &&
  lp.text_offset.slice(1).every((offset, i) => offset === lp.text_offset[i] + codePoints(lp.tokens[i])),
  'text_offset counts the characters from the prompt\'s start');
const scoredChunks = await collect(await client.completions.create({ ...request, logprobs: 2, stream: true }));
const streamedTokens = scoredChunks.flatMap((c) => c.choices[0].logprobs?.tokens ?? []);
const streamedLogprobs = scoredChunks.flatMap((c) => c.choices[0].logprobs?.token_logprobs ?? []);
check(streamedTokens.join('|') === lp.tokens.join('|') && streamedLogprobs.join() === lp.token_logprobs.join(),
  'a streamed completion carries each token\'s log-probability in the event of its text');
const echoed = await client.completions.create({ ...request, echo: true, max_tokens: 4 });
check(echoed.choices[0].text.startsWith(request.prompt) && echoed.usage.completion_tokens === 4,
  'echo: the text starts with the prompt');
const prompt = await client.completions.create({ model, prompt: request.prompt, echo: true, max_tokens: 0, logprobs: 1 });
const promptLp = prompt.choices[0].logprobs;
check(prompt.choices[0].text === request.prompt && prompt.usage.completion_tokens === 0 &&
  promptLp.tokens.join('') === request.prompt && promptLp.tokens.length === prompt.usage.prompt_tokens &&
  promptLp.token_logprobs[0] === null && promptLp.top_logprobs[0] === null &&
  promptLp.token_logprobs.slice(1).every((x) => x < 0) && promptLp.text_offset[0] === 0,
  'echo with max_tokens 0 scores the prompt: its tokens, null for the first, a log-probability for each after');

// Penalties and the logit bias steer the draw.
const greedy = { model, prompt: request.prompt, max_tokens: 6, temperature: 0, logprobs: 0 };
const repeated = await client.completions.create(greedy);
const repeatedTokens = repeated.choices[0].logprobs.tokens;
const fresh = await client.completions.create({ ...greedy, presence_penalty: 2 });
const freshTokens = fresh.choices[0].logprobs.tokens;
check(new Set(freshTokens).size > new Set(repeatedTokens).size,
  `presence_penalty: 2 draws more distinct tokens (${new Set(freshTokens).size} against ${new Set(repeatedTokens).size})`);
const biased = await client.completions.create({ ...greedy, temperature: 1, seed: 2, logit_bias: { 262: 100 } });
check(biased.choices[0].text === ' the'.repeat(6), 'logit_bias of 100 on token 262 makes every token " the"');
const badBias = await refusal(() => client.completions.create({ ...greedy, logit_bias: { 50257: 1 } }));
check(badBias instanceof OpenAI.BadRequestError && badBias.param === 'logit_bias',
  'a logit_bias on a token outside the vocabulary raises BadRequestError');
const tooMany = await refusal(() => client.completions.create({ ...greedy, logprobs: 6 }));
check(tooMany instanceof OpenAI.BadRequestError && tooMany.param === 'logprobs',
  'logprobs past 5 raises BadRequestError');
const suffix = await refusal(() => client.completions.create({ ...greedy, suffix: 'x' }));
check(suffix instanceof OpenAI.BadRequestError && suffix.param === 'suffix', 'suffix raises BadRequestError');
const bestOf = await refusal(() => client.completions.create({ ...greedy, best_of: 2 }));
check(bestOf instanceof OpenAI.BadRequestError && bestOf.param === 'best_of', 'best_of past n raises BadRequestError');

// Chat, whole and streamed.
const chat = { model, seed: 3, max_completion_tokens: 10,
  messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }] };
const answer = await client.chat.completions.create(chat);
const message = answer.choices[0].message;
check(answer.object === 'chat.completion' && message.role === 'assistant' && typeof message.content === 'string',
  'chat.completions.create() returns the assistant message');
const chatChunks = await collect(await client.chat.completions.create({
  ...chat, stream: true, stream_options: { include_usage: true } }));
const deltas = chatChunks.filter((c) => c.choices.length).map((c) => c.choices[0].delta);
check(deltas[0].role === 'assistant' && deltas.map((d) => d.content ?? '').join('') === message.content,
  'a streamed chat opens with the role and its content joins into the whole message');
check(chatChunks.filter((c) => c.choices.length).pop().choices[0].finish_reason === answer.choices[0].finish_reason &&
  chatChunks[chatChunks.length - 1].usage?.total_tokens === answer.usage.total_tokens,
  'the streamed chat ends with the finish reason, then the usage');
const twoAnswers = await client.chat.completions.create({ ...chat, n: 2 });
check(twoAnswers.choices.length === 2 && twoAnswers.choices[0].message.content === message.content,
  'a chat with n: 2 gives two messages, the first the one its seed gives alone');
const chatScored = await client.chat.completions.create({ ...chat, logprobs: true, top_logprobs: 2 });
const content = chatScored.choices[0].logprobs?.content ?? [];
check(chatScored.choices[0].message.content === message.content &&
  content.length === chatScored.usage.completion_tokens &&
  content.every((entry) => entry.logprob <= 0 && Array.isArray(entry.bytes) && entry.top_logprobs.length === 2),
  'a chat with logprobs and top_logprobs: 2 scores each token of the same message, with two alternatives');
const chatScoredChunks = await collect(await client.chat.completions.create({
  ...chat, logprobs: true, top_logprobs: 2, stream: true }));
const chunkContent = chatScoredChunks.flatMap((c) => c.choices[0]?.logprobs?.content ?? []);
check(chunkContent.map((e) => e.token).join('|') === content.map((e) => e.token).join('|'),
  'a streamed chat carries the same log-probabilities, chunk by chunk');
const lonelyTop = await refusal(() => client.chat.completions.create({ ...chat, top_logprobs: 2 }));
check(lonelyTop instanceof OpenAI.BadRequestError && lonelyTop.param === 'top_logprobs',
  'top_logprobs without logprobs raises BadRequestError');
const noMessages = await refusal(() => client.chat.completions.create({ model, messages: [] }));
check(noMessages instanceof OpenAI.BadRequestError && noMessages.param === 'messages',
  'a chat without messages raises BadRequestError');

console.log(`${failures} failure(s)`);
process.exit(failures ? 1 : 0);
