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
const noMessages = await refusal(() => client.chat.completions.create({ model, messages: [] }));
check(noMessages instanceof OpenAI.BadRequestError && noMessages.param === 'messages',
  'a chat without messages raises BadRequestError');

console.log(`${failures} failure(s)`);
process.exit(failures ? 1 : 0);
