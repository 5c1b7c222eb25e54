/**
 * The refusal walk: every options type the packages export is listed here, and every one a user
 * writes is built with its smallest valid value plus a key it does not have. A new exported
 * `...Options` type without an entry fails the first test, so a new option object cannot skip
 * the check; an entry whose constructor stops checking fails the others.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { Redis } from 'ioredis';
import { EMPTY } from 'rxjs';
import { z } from 'zod';
import {
  Agent,
  defineTool,
  InMemorySessionStore,
  OptionsError,
  RxscopeError,
  toEventStreamResponse,
} from '@rxscope/core';
import { RxscopeAgUiAgent, toAgUiEventStreamResponse } from '@rxscope/core/ag-ui';
import { createUIMessageStreamHandler, toUIMessageStreamResponse } from '@rxscope/core/ui-message-stream';
import { LangChainChatModel } from '@rxscope/core/langchain';
import {
  AgentSessions,
  createAgentSseHandler,
  FileSessionStore,
  InMemorySessionEventBus,
  RedisSessionEventBus,
  RedisSessionStore,
} from '@rxscope/core/node';
import { createAgUiHandler } from '@rxscope/core/node/ag-ui';
import { BullMQSessionScheduler, ReplyQueue, ReplyWorker } from '@rxscope/core/node/bullmq';
import { OpenAIChatModel } from '@rxscope/core/openai';
import { ScriptedChatModel } from '@rxscope/core/testing';
import {
  AuditLogMiddleware,
  CostLimitMiddleware,
  DynamicPromptMiddleware,
  FallbackMiddleware,
  GuardrailMiddleware,
  maxLength,
  memoryAuditSink,
  moderation,
  ModelCallLimitMiddleware,
  PiiRedactionMiddleware,
  promptInjection,
  RateLimitMiddleware,
  ReplyBudgetMiddleware,
  resilient,
  RetryMiddleware,
  TimeoutMiddleware,
  ToolCallLimitMiddleware,
  ToolGuardMiddleware,
  TracingMiddleware,
  UsageMiddleware,
} from '@rxscope/middleware-builtin';
import { InMemoryKnowledgeBase, RAGMiddleware, VectorStoreKnowledgeBase } from '@rxscope/middleware-builtin/knowledge';
import { a2aAgentTool, serveAgentOverA2A } from '@rxscope/middleware-builtin/a2a';
import { McpMiddleware, serveAgentOverMcp, SessionStoreOAuthProvider } from '@rxscope/middleware-builtin/mcp';
import {
  AgenticMemoryMiddleware,
  KnowledgeMemoryBackend,
  StaticMemoryMiddleware,
} from '@rxscope/middleware-builtin/memory';
import { FileMemoryBackend } from '@rxscope/middleware-builtin/node';
import { RedisCostStore } from '@rxscope/middleware-builtin/redis';
import { RecordingMiddleware, ReplayChatModel } from '@rxscope/middleware-builtin/recording';
import { OpenAITextToSpeech, TTSMiddleware } from '@rxscope/middleware-builtin/tts';
import {
  AsyncToolMiddleware,
  AtPathExpansionMiddleware,
  BackgroundTasks,
  BubblewrapSandbox,
  CompactionMiddleware,
  createHarnessAgent,
  editFileTool,
  grepFilesTool,
  InboxMiddleware,
  InboxWakeUps,
  InMemoryMessageBus,
  LocalFileSystem,
  LocalSandbox,
  MemoryFlushMiddleware,
  MemoryMaintenanceMiddleware,
  PlanModeMiddleware,
  readFileTool,
  SandboxLifecycleMiddleware,
  SkillCuratorMiddleware,
  SubagentsMiddleware,
  TodoListMiddleware,
  ToolResultEvictionMiddleware,
  WorkspaceContextMiddleware,
  WorkspaceSnapshotMiddleware,
} from '@rxscope/harness';
import {
  costBudget,
  exactAnswer,
  includesAnswer,
  jsonSchemaAnswer,
  latencyBudget,
  llmJudge,
  noDeniedTool,
  noSecret,
  numericAnswer,
  regexAnswer,
  replyGrammar,
  runEval,
  trajectory,
} from '@rxscope/evals';
import { SubagentJobQueue, SubagentJobWorker } from '@rxscope/harness/bullmq';
import { loadWorkspaceMcp } from '@rxscope/harness/mcp';
import { RedisLease, RedisMessageBus, RedisSandboxLease } from '@rxscope/harness/redis';
import { tempDir } from './helpers.js';

type Extra = Record<string, unknown>;

/** An options object a user writes: how to build its owner with `extra` added, and one real key. */
interface Checked {
  readonly build: (extra: Extra) => unknown;
  /** A key the object has: the walk misspells it and expects "did you mean" it. */
  readonly key: string;
  /** The code of the refusal, when the owner keeps one of its own. Default `unknown_option`. */
  readonly code?: string;
  /** Why the smallest valid object is not built on its own here (it would connect somewhere). */
  readonly noValidBuild?: string;
}
/** An exported options type that is not an object a user configures something with. */
interface NotChecked {
  readonly notChecked: string;
}

const dir = tempDir('rxscope-walk-');
afterAll(() => dir.cleanup());
const fileSystem = new LocalFileSystem(dir.path);
const model = new ScriptedChatModel([]);
const agent = new Agent({ name: 'walk', model });
const redis = new Redis({ lazyConnect: true });
const bus = new InMemoryMessageBus();
const tasks = new BackgroundTasks({ bus });
const connection = { host: '127.0.0.1', port: 6379 };
const bullmq = 'BullMQ connects when its queue or worker is made';
const mcp = 'McpMiddleware.connect connects to its servers';
const base = (extra: Extra) => extra as Record<never, never>;
const emptyCassette = { version: 1, modelCalls: [], replies: [] };

const callTime = (what: string): NotChecked => ({ notChecked: `the options of one call of ${what}` });

const WALK: Readonly<Record<string, Checked | NotChecked>> = {
  // @rxscope/core
  AgentOptions: { build: (x) => new Agent({ model, ...base(x) }), key: 'middlewares' },
  CheckpointOptions: { build: (x) => new Agent({ model, checkpoints: { ...base(x) } }), key: 'leaseMs' },
  ToolDefinition: {
    build: (x) => defineTool({ name: 't', description: 'd', input: z.object({}), execute: () => '', ...base(x) }),
    key: 'readOnly',
  },
  ReplyOptions: callTime('agent.reply()'),
  AgentToolOptions: { build: (x) => agent.asTool({ description: 'Asks walk.', ...base(x) }), key: 'prompt' },
  AgentShutdownOptions: callTime('agent.shutdown()'),
  HintOptions: callTime('a conversation edit by a middleware'),
  ModelOptions: { notChecked: 'provider settings passed through to the model adapter as they are' },
  CheckOptionKeysOptions: callTime('checkOptionKeys(), for package authors'),
  ModelErrorOptions: { notChecked: 'the fields of an error a model adapter throws' },
  ReplyReducerOptions: callTime('createReplyReducer()'),
  CloseOpenStreamOptions: callTime('closeOpenStream(), for middleware authors'),
  AgentEventStreamOptions: callTime('fromAgentEventStream()'),
  ServerSentEventsOptions: callTime('the toServerSentEvents() operator'),
  EventStreamResponseOptions: { build: (x) => toEventStreamResponse(EMPTY, { ...base(x) }), key: 'heartbeatMs' },
  ThrowOnErrorEndOptions: callTime('the throwOnErrorEnd() operator'),
  ToTextOptions: callTime('the toText() operator'),
  TextOfOptions: callTime('the deprecated textOf() operator'),
  ScriptedChatModelOptions: { notChecked: 'the testing kit' },
  OpenAITestServerOptions: { notChecked: 'the testing kit' },
  RedisTestServerOptions: { notChecked: 'the testing kit' },
  // @rxscope/core/openai, /langchain
  OpenAIChatModelOptions: {
    build: (x) => new OpenAIChatModel({ model: 'm', apiKey: 'k', ...base(x) }),
    key: 'baseURL',
  },
  ToOpenAIMessagesOptions: callTime('toOpenAIMessages()'),
  LangChainChatModelOptions: {
    build: (x) => new LangChainChatModel({ model: new FakeStreamingChatModel({}), ...base(x) }),
    key: 'callOptions',
  },
  // @rxscope/core/node and its subpaths
  FileSessionStoreOptions: { build: (x) => new FileSessionStore({ dir: dir.path, ...base(x) }), key: 'lockTimeoutMs' },
  RedisSessionStoreOptions: { build: (x) => new RedisSessionStore({ redis, ...base(x) }), key: 'ttlSeconds' },
  AgentSessionsOptions: { build: (x) => new AgentSessions({ agent: () => agent, ...base(x) }), key: 'cancelGraceMs' },
  InMemorySessionEventBusOptions: { build: (x) => new InMemorySessionEventBus({ ...base(x) }), key: 'maxSessions' },
  RedisSessionEventBusOptions: { build: (x) => new RedisSessionEventBus({ redis, ...base(x) }), key: 'maxEvents' },
  SessionEventsOptions: callTime('sessions.events()'),
  AgentSseHandlerOptions: {
    build: (x) => createAgentSseHandler({ events: () => EMPTY, ...base(x) }),
    key: 'heartbeatMs',
  },
  StreamAgentEventsOptions: callTime('streamAgentEvents()'),
  ShutdownAgentsOptions: callTime('shutdownAgents()'),
  AgUiHandlerOptions: { build: (x) => createAgUiHandler({ agent, ...base(x) }), key: 'maxBodyBytes' },
  RxscopeAgUiAgentOptions: { build: (x) => new RxscopeAgUiAgent({ agent, ...base(x) }), key: 'threadId' },
  ToAgUiEventsOptions: callTime('the toAgUiEvents() operator'),
  AgUiEventStreamResponseOptions: { build: (x) => toAgUiEventStreamResponse(EMPTY, { ...base(x) }), key: 'threadId' },
  // @rxscope/core/ui-message-stream
  UIMessageStreamResponseOptions: { build: (x) => toUIMessageStreamResponse(EMPTY, { ...base(x) }), key: 'status' },
  UIMessageStreamHandlerOptions: {
    build: (x) => createUIMessageStreamHandler({ agent, ...base(x) }),
    key: 'maxBodyBytes',
  },
  ReplyQueueOptions: {
    build: (x) => new ReplyQueue({ connection, ...base(x) }),
    key: 'defaultJobOptions',
    noValidBuild: bullmq,
  },
  ReplyWorkerOptions: {
    build: (x) => new ReplyWorker({ connection, agent: () => agent, bus: new InMemorySessionEventBus(), ...base(x) }),
    key: 'concurrency',
    noValidBuild: bullmq,
  },
  BullMQSessionSchedulerOptions: {
    build: (x) => new BullMQSessionScheduler({ connection, ...base(x) }),
    key: 'concurrency',
    noValidBuild: bullmq,
  },
  AgentForkOptions: callTime('agent.fork()'),
  AgentRewindOptions: callTime('agent.rewind()'),
  SessionForkOptions: callTime('sessions.fork()'),
  SessionScheduleOptions: callTime('sessions.schedule(), which checks each field (InvalidScheduleError)'),
  SessionUserOptions: callTime('sessions.start() and sessions.events()'),
  // @rxscope/middleware-builtin and its subpaths
  CostLimitOptions: { build: (x) => new CostLimitMiddleware({ prices: {}, perReply: 1, ...base(x) }), key: 'perReply' },
  GuardrailOptions: { build: (x) => new GuardrailMiddleware({ input: [maxLength(10)], ...base(x) }), key: 'output' },
  ModerationOptions: { build: (x) => moderation({ ...base(x) }), key: 'categories' },
  PromptInjectionOptions: { build: (x) => promptInjection({ model, ...base(x) }), key: 'prompt' },
  RedisCostStoreOptions: { build: (x) => new RedisCostStore({ redis, ...base(x) }), key: 'prefix' },
  TracingOptions: { build: (x) => new TracingMiddleware({ ...base(x) }), key: 'captureContent' },
  RetryOptions: { build: (x) => new RetryMiddleware({ ...base(x) }), key: 'maxRetries' },
  FallbackOptions: { build: (x) => new FallbackMiddleware({ models: [model], ...base(x) }), key: 'shouldFallback' },
  RateLimitOptions: { build: (x) => new RateLimitMiddleware({ ...base(x) }), key: 'maxConcurrent' },
  TimeoutOptions: { build: (x) => new TimeoutMiddleware({ ...base(x) }), key: 'modelCallMs' },
  ReplyBudgetOptions: { build: (x) => new ReplyBudgetMiddleware({ tokenBudget: 1000, ...base(x) }), key: 'warnAt' },
  ModelCallLimitOptions: { build: (x) => new ModelCallLimitMiddleware({ perReply: 3, ...base(x) }), key: 'finishHint' },
  ToolCallLimitOptions: { build: (x) => new ToolCallLimitMiddleware({ perReply: 3, ...base(x) }), key: 'deniedText' },
  DynamicPromptOptions: { build: (x) => new DynamicPromptMiddleware({ ...base(x) }), key: 'sections' },
  CurrentTimeOptions: callTime('formatCurrentTime()'),
  ToolGuardOptions: { build: (x) => new ToolGuardMiddleware({ ...base(x) }), key: 'hideDenied' },
  ResilientOptions: { build: (x) => resilient({ key: 'm' }, { ...base(x) }), key: 'propagate' },
  PiiRedactionOptions: { build: (x) => new PiiRedactionMiddleware({ ...base(x) }), key: 'hashSalt' },
  PiiOutputOptions: { notChecked: 'the value of PiiRedactionOptions.output, read by the middleware' },
  UsageOptions: { build: (x) => new UsageMiddleware({ ...base(x) }), key: 'currency' },
  AuditLogOptions: { build: (x) => new AuditLogMiddleware({ sink: memoryAuditSink(), ...base(x) }), key: 'redactKeys' },
  LimitExceededErrorOptions: { notChecked: 'the fields of an error the limit middlewares throw' },
  InMemoryKnowledgeBaseOptions: { build: (x) => new InMemoryKnowledgeBase({ ...base(x) }), key: 'chunkSize' },
  VectorStoreKnowledgeBaseOptions: {
    build: (x) =>
      new VectorStoreKnowledgeBase({
        store: { similaritySearchWithScore: () => Promise.resolve([]), addDocuments: () => Promise.resolve() },
        ...base(x),
      }),
    key: 'chunkOverlap',
  },
  KnowledgeSearchOptions: callTime('knowledgeBase.search()'),
  SearchKnowledgeBasesOptions: callTime('searchKnowledgeBases()'),
  ReciprocalRankFusionOptions: callTime('reciprocalRankFusion()'),
  RAGOptions: {
    build: (x) => new RAGMiddleware({ knowledgeBases: { docs: new InMemoryKnowledgeBase() }, ...base(x) }),
    key: 'scoreThreshold',
  },
  AgenticMemoryOptions: {
    build: (x) => new AgenticMemoryMiddleware({ backend: new FileMemoryBackend({ dir: dir.path }), ...base(x) }),
    key: 'maxRecall',
  },
  StaticMemoryOptions: {
    build: (x) => new StaticMemoryMiddleware({ backend: new FileMemoryBackend({ dir: dir.path }), ...base(x) }),
    key: 'writeBack',
  },
  KnowledgeMemoryBackendOptions: { build: (x) => new KnowledgeMemoryBackend({ ...base(x) }), key: 'memories' },
  FileMemoryBackendOptions: { build: (x) => new FileMemoryBackend({ dir: dir.path, ...base(x) }), key: 'dir' },
  RecordingOptions: { build: (x) => new RecordingMiddleware({ save: () => undefined, ...base(x) }), key: 'save' },
  ReplayChatModelOptions: { build: (x) => new ReplayChatModel(emptyCassette, { ...base(x) }), key: 'normalize' },
  TTSOptions: {
    build: (x) => new TTSMiddleware({ tts: new OpenAITextToSpeech({ apiKey: 'k' }), ...base(x) }),
    key: 'mode',
  },
  OpenAITextToSpeechOptions: { build: (x) => new OpenAITextToSpeech({ apiKey: 'k', ...base(x) }), key: 'voice' },
  SpeechOptions: callTime('textToSpeech.synthesize()'),
  McpOptions: {
    build: (x) => McpMiddleware.connect({ servers: {}, ...base(x) }),
    key: 'closeOnShutdown',
    noValidBuild: mcp,
  },
  McpSamplingOptions: {
    build: (x) => McpMiddleware.connect({ servers: {}, sampling: { ...base(x) } }),
    key: 'policy',
    noValidBuild: mcp,
  },
  SessionStoreOAuthOptions: {
    build: (x) =>
      new SessionStoreOAuthProvider({
        store: new InMemorySessionStore(),
        key: 'k',
        redirectUrl: 'http://127.0.0.1/cb',
        ...base(x),
      }),
    key: 'authorize',
  },
  McpConnectionOptions: { notChecked: 'McpConnection.open(), which McpMiddleware.connect calls with checked options' },
  McpCallOptions: callTime('an MCP tool call'),
  ServeAgentOptions: {
    build: (x) => serveAgentOverMcp(agent, { transport: { port: 0 }, ...base(x) }),
    key: 'description',
    noValidBuild: 'it would start a server',
  },
  // @rxscope/evals
  TrajectoryOptions: { build: (x) => trajectory({ ...base(x) }), key: 'calls' },
  ExactAnswerOptions: { build: (x) => exactAnswer({ ...base(x) }), key: 'ignoreCase' },
  IncludesAnswerOptions: { build: (x) => includesAnswer({ ...base(x) }), key: 'values' },
  RegexAnswerOptions: { build: (x) => regexAnswer({ pattern: /x/, ...base(x) }), key: 'pattern' },
  NumericAnswerOptions: { build: (x) => numericAnswer({ ...base(x) }), key: 'tolerance' },
  JsonSchemaAnswerOptions: { build: (x) => jsonSchemaAnswer({ schema: {}, ...base(x) }), key: 'schema' },
  CostBudgetOptions: { build: (x) => costBudget({ maxModelCalls: 3, ...base(x) }), key: 'maxTotalTokens' },
  LatencyBudgetOptions: { build: (x) => latencyBudget({ maxMs: 100, ...base(x) }), key: 'maxMs' },
  ReplyGrammarOptions: { build: (x) => replyGrammar({ ...base(x) }), key: 'finishReason' },
  NoDeniedToolOptions: { build: (x) => noDeniedTool({ tools: [], ...base(x) }), key: 'tools' },
  NoSecretOptions: { build: (x) => noSecret({ secrets: [], ...base(x) }), key: 'toolInputs' },
  LlmJudgeOptions: { build: (x) => llmJudge({ agent: () => agent, rubric: 'r', ...base(x) }), key: 'passAt' },
  // @rxscope/devtools (the harness does not depend on it: its own specs walk these)
  DevtoolsRecorderOptions: { notChecked: 'walked in packages/devtools/src/recorder/devtools-recorder.spec.ts' },
  DevtoolsMiddlewareOptions: { notChecked: 'walked in packages/devtools/src/recorder/devtools-recorder.spec.ts' },
  DevtoolsHandlerOptions: { notChecked: 'walked in packages/devtools/src/node/devtools-handler-servers.spec.ts' },
  DevtoolsReplayOptions: { notChecked: 'walked in packages/devtools/src/node/devtools-handler-servers.spec.ts' },
  ResolvedRecorderOptions: { notChecked: 'what the recorder made of its options (read back), no configuration object' },
  SanitizeOptions: callTime('sanitize'),
  RunEvalOptions: {
    build: (x) => runEval({ dataset: [], agent: () => agent, scorers: [exactAnswer()], ...base(x) }),
    key: 'concurrency',
  },
  ServeAgentOverA2AOptions: {
    build: (x) => serveAgentOverA2A(agent, { card: { description: 'd' }, ...base(x) }),
    key: 'port',
    noValidBuild: 'it would start a server',
  },
  A2aCardOptions: {
    build: (x) => serveAgentOverA2A(agent, { card: { description: 'd', ...base(x) } }),
    key: 'description',
    noValidBuild: 'it would start a server',
  },
  A2aAgentToolOptions: { build: (x) => a2aAgentTool({ url: 'http://127.0.0.1:9/', ...base(x) }), key: 'timeoutMs' },
  // @rxscope/harness and its subpaths
  HarnessOptions: { build: (x) => createHarnessAgent({ model, workspace: dir.path, ...base(x) }), key: 'compaction' },
  HarnessMemoryOptions: {
    build: (x) => createHarnessAgent({ model, workspace: dir.path, memory: { ...base(x) } }),
    key: 'maintenance',
  },
  WorkspaceReadOptions: { build: (x) => fileSystem.readFile('AGENTS.md', { ...base(x) }), key: 'maxBytes' },
  WorkspaceGlobOptions: { build: (x) => fileSystem.glob('*.md', { ...base(x) }), key: 'respectGitignore' },
  ReadFileOptions: { build: (x) => readFileTool(fileSystem, { ...base(x) }), key: 'maxChars' },
  EditFileOptions: { build: (x) => editFileTool(fileSystem, { ...base(x) }), key: 'maxFileBytes' },
  GrepFilesOptions: { build: (x) => grepFilesTool(fileSystem, { ...base(x) }), key: 'maxMatches' },
  FileTooLargeErrorOptions: { notChecked: 'the fields of an error the workspace throws' },
  LocalSandboxOptions: {
    build: (x) => new LocalSandbox({ ...base(x) }),
    key: 'limits',
    code: 'sandbox_option_unknown',
  },
  BubblewrapSandboxOptions: {
    build: (x) => new BubblewrapSandbox({ ...base(x) }),
    key: 'readOnlyPaths',
    code: 'sandbox_option_unknown',
  },
  ExecOptions: callTime('sandboxSession.exec()'),
  SandboxLifecycleOptions: {
    build: (x) => new SandboxLifecycleMiddleware({ sandbox: new LocalSandbox(), workspace: dir.path, ...base(x) }),
    key: 'maxTimeoutS',
  },
  WorkspaceContextOptions: {
    build: (x) => new WorkspaceContextMiddleware({ workspace: dir.path, ...base(x) }),
    key: 'memoryTokens',
  },
  AtPathExpansionOptions: {
    build: (x) => new AtPathExpansionMiddleware({ fileSystem, ...base(x) }),
    key: 'maxFileChars',
  },
  PlanModeOptions: { build: (x) => new PlanModeMiddleware({ fileSystem, ...base(x) }), key: 'banner' },
  TodoListOptions: { build: (x) => new TodoListMiddleware({ ...base(x) }), key: 'maxTodos' },
  CompactionOptions: { build: (x) => new CompactionMiddleware({ fileSystem, ...base(x) }), key: 'triggerTokens' },
  MemoryFlushOptions: { build: (x) => new MemoryFlushMiddleware({ fileSystem, ...base(x) }), key: 'timeoutMs' },
  MemoryMaintenanceOptions: {
    build: (x) => new MemoryMaintenanceMiddleware({ fileSystem, ...base(x) }),
    key: 'intervalMs',
  },
  ToolResultEvictionOptions: {
    build: (x) => new ToolResultEvictionMiddleware({ fileSystem, ...base(x) }),
    key: 'maxResultChars',
  },
  InMemoryMessageBusOptions: { build: (x) => new InMemoryMessageBus({ ...base(x) }), key: 'maxLogEntries' },
  LogReadOptions: callTime('messageBus.read()'),
  InboxOptions: { build: (x) => new InboxMiddleware({ bus, ...base(x) }), key: 'onError' },
  InboxWakeUpsOptions: {
    build: (x) => new InboxWakeUps({ bus, sessions: new AgentSessions({ agent: () => agent }), ...base(x) }),
    key: 'sessions',
  },
  RestoreWorkspaceOptions: callTime('restoreWorkspace()'),
  BackgroundTasksOptions: { build: (x) => new BackgroundTasks({ bus, ...base(x) }), key: 'keepFinished' },
  AsyncToolOptions: { build: (x) => new AsyncToolMiddleware({ tasks, ...base(x) }), key: 'timeoutMs' },
  SubagentsOptions: { build: (x) => new SubagentsMiddleware({ fileSystem, tasks, ...base(x) }), key: 'maxDepth' },
  SkillCuratorOptions: { build: (x) => new SkillCuratorMiddleware({ fileSystem, ...base(x) }), key: 'maxListed' },
  WorkspaceSnapshotMiddlewareOptions: {
    build: (x) => new WorkspaceSnapshotMiddleware({ fileSystem, ...base(x) }),
    key: 'maxTotalBytes',
  },
  WorkspaceSnapshotOptions: callTime('snapshotWorkspace()'),
  LoadWorkspaceMcpOptions: { build: (x) => loadWorkspaceMcp(dir.path, { ...base(x) }), key: 'file' },
  RedisMessageBusOptions: { build: (x) => new RedisMessageBus({ redis, ...base(x) }), key: 'ttlSeconds' },
  RedisLeaseOptions: { build: (x) => new RedisLease({ redis, ...base(x) }), key: 'renewEveryMs' },
  RedisSandboxLeaseOptions: { build: (x) => new RedisSandboxLease({ redis, ...base(x) }), key: 'retryEveryMs' },
  SubagentJobQueueOptions: {
    build: (x) => new SubagentJobQueue({ connection, bus, ...base(x) }),
    key: 'defaultJobOptions',
    noValidBuild: bullmq,
  },
  SubagentJobWorkerOptions: {
    build: (x) => new SubagentJobWorker({ connection, bus, agent: () => agent, ...base(x) }),
    key: 'maxResultChars',
    noValidBuild: bullmq,
  },
  SubagentWorkerShutdownOptions: callTime('subagentJobWorker.close()'),
  // @rxscope/angular
  InjectAgentChatOptions: {
    notChecked:
      'refused in an Angular injection context, which this project does not load: packages/angular/src/__tests__/provide-rxscope.spec.ts walks it',
  },
};

/** Every `...Options` type (and `ToolDefinition`) exported by an entry point of a package. */
function exportedOptionTypes(): string[] {
  const packages = join(__dirname, '..', '..', '..');
  const names = new Set<string>();
  for (const name of readdirSync(packages)) {
    const manifest = JSON.parse(readFileSync(join(packages, name, 'package.json'), 'utf8')) as {
      exports: Record<string, { types?: string }>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      // ./internal is the engine's own, unstable entry point.
      if (!target.types || subpath === './internal') continue;
      // An Angular package (built by ng-packagr) names its source entry in ng-package.json.
      const ngPackage = join(packages, name, 'ng-package.json');
      const source = existsSync(ngPackage)
        ? join(
            packages,
            name,
            (JSON.parse(readFileSync(ngPackage, 'utf8')) as { lib: { entryFile: string } }).lib.entryFile,
          )
        : join(packages, name, target.types.replace('./dist/', 'src/').replace(/\.d\.ts$/, '.ts'));
      for (const block of readFileSync(source, 'utf8').matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
        for (const item of block[1]!.split(',')) {
          const exported = item
            .replace(/^\s*type\s+/, '')
            .split(/\s+as\s+/)
            .pop()!
            .trim();
          if (/Options$/.test(exported) || exported === 'ToolDefinition') names.add(exported);
        }
      }
    }
  }
  return [...names].sort();
}

/** What `build` throws or rejects with (it must refuse). */
async function refusal(build: () => unknown): Promise<RxscopeError & { code: string; message: string }> {
  try {
    await build();
  } catch (e) {
    expect(e).toBeInstanceOf(RxscopeError);
    return e as RxscopeError;
  }
  throw new Error('not refused');
}

/** A slip of `key`: its last letter dropped (or, for a short key, doubled). */
const misspelt = (key: string) => (key.length > 4 ? key.slice(0, -1) : `${key}${key.at(-1)!}`);

const checked = Object.entries(WALK).filter((e): e is [string, Checked] => 'build' in e[1]);

afterAll(() => redis.disconnect());

describe('every exported options type is walked', () => {
  it('has an entry here: checked with a build, or the reason it is no configuration object', () => {
    const exported = exportedOptionTypes();
    expect(exported.filter((name) => !(name in WALK))).toEqual([]);
    // No stale entries either: each names an exported type.
    expect(Object.keys(WALK).filter((name) => !exported.includes(name))).toEqual([]);
  });

  it.each(checked)(
    '%s: an unknown key is refused with a stable code, and a slip gets "did you mean"',
    async (_name, entry) => {
      const bogus = await refusal(() => entry.build({ bogusKye: 1 }));
      expect(bogus.code).toBe(entry.code ?? 'unknown_option');
      expect(bogus.message).toContain('unknown option "bogusKye"');
      expect(bogus.message).toContain(`Known: `);
      expect(bogus.message).toContain(entry.key);
      const slip = await refusal(() => entry.build({ [misspelt(entry.key)]: 1 }));
      expect(slip.code).toBe(entry.code ?? 'unknown_option');
      expect(slip.message).toContain(`unknown option "${misspelt(entry.key)}"`);
      expect(slip.message).toContain(`did you mean "${entry.key}"?`);
      // The core's own class where the owner keeps none of its own (the harness's subclasses it).
      if (!entry.code && !(slip.name === 'ModelError' || slip.name === 'AgentUsageError'))
        expect(slip).toBeInstanceOf(OptionsError);
    },
  );

  it.each(checked.filter(([, entry]) => !entry.noValidBuild))(
    '%s: the smallest valid options are accepted (the refusal is the extra key)',
    async (_name, entry) => {
      // Throws or rejects (failing the test) if the smallest valid options were refused.
      await entry.build({});
    },
  );
});

describe("other frameworks' spellings name the rxscope one", () => {
  const cases: [string, () => unknown, string, string][] = [
    [
      'OpenAIChatModel',
      () => new OpenAIChatModel({ model: 'm', apiKey: 'k', baseUrl: 'http://x/v1' } as never),
      'baseUrl',
      'baseURL',
    ],
    ['OpenAIChatModel', () => new OpenAIChatModel({ modelName: 'm', apiKey: 'k' } as never), 'modelName', 'model'],
    ['OpenAITextToSpeech', () => new OpenAITextToSpeech({ baseUrl: 'http://x/v1' } as never), 'baseUrl', 'baseURL'],
    ['Agent', () => new Agent({ model, systemPrompt: 'Be brief.' } as never), 'systemPrompt', 'sysPrompt'],
    ['Agent', () => new Agent({ model, instructions: 'Be brief.' } as never), 'instructions', 'sysPrompt'],
    ['Agent', () => new Agent({ model, maxSteps: 5 } as never), 'maxSteps', 'maxIters'],
    [
      'createHarnessAgent',
      () => createHarnessAgent({ model, workspace: dir.path, maxTurns: 5 } as never),
      'maxTurns',
      'maxIters',
    ],
    [
      'createHarnessAgent',
      () => createHarnessAgent({ model, workspace: dir.path, system: 'x' } as never),
      'system',
      'sysPrompt',
    ],
    ...(['inputSchema', 'schema', 'parameters'] as const).map((key): [string, () => unknown, string, string] => [
      'defineTool',
      () => defineTool({ name: 't', description: 'd', [key]: z.object({}), execute: () => '' } as never),
      key,
      'input',
    ]),
    [
      'defineTool',
      () => defineTool({ name: 't', description: 'd', input: z.object({}), func: () => '' } as never),
      'func',
      'execute',
    ],
    ['AgentSessions', () => new AgentSessions({ agentFactory: () => agent } as never), 'agentFactory', 'agent'],
  ];

  it.each(cases)('%s: "%s"', async (owner, build, key, meant) => {
    const error = await refusal(build);
    expect(error.code).toBe('unknown_option');
    expect(error.message).toContain(`unknown option "${key}" of ${owner}; did you mean "${meant}"?`);
  });
});
