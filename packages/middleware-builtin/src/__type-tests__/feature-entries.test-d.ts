/**
 * Type tests of the feature entries (`/knowledge`, `/memory`, `/recording`, `/tts`): each exports
 * its names, and the root entry's deprecated aliases are the same values and the same types.
 * Never run: `tsc -b` checks them (through tsconfig.spec.json).
 */
import type { Agent, Middleware } from '@rxscope/core';
import * as root from '../index.js';
import * as knowledge from '../knowledge/index.js';
import * as memory from '../memory/index.js';
import * as recording from '../recording/index.js';
import * as tts from '../tts/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
declare const agent: Agent;

// ── The entries export working middlewares ────────────────────────────────────────────────────
declare const kb: knowledge.KnowledgeBase;
declare const backend: memory.MemoryBackend;
declare const speech: tts.TextToSpeech;
const features: Middleware[] = [
  new knowledge.RAGMiddleware({ knowledgeBases: { kb } }),
  new memory.AgenticMemoryMiddleware({ backend }),
  new memory.StaticMemoryMiddleware({ backend }),
  new recording.RecordingMiddleware({ save: async (_cassette: recording.Cassette) => {} }),
  new tts.TTSMiddleware({ tts: speech }),
];
void features;
void agent;

// ── Root aliases: the same values ─────────────────────────────────────────────────────────────
export type RootValues = [
  Expect<Equal<typeof root.InMemoryKnowledgeBase, typeof knowledge.InMemoryKnowledgeBase>>,
  Expect<Equal<typeof root.VectorStoreKnowledgeBase, typeof knowledge.VectorStoreKnowledgeBase>>,
  Expect<Equal<typeof root.RAGMiddleware, typeof knowledge.RAGMiddleware>>,
  Expect<Equal<typeof root.reciprocalRankFusion, typeof knowledge.reciprocalRankFusion>>,
  Expect<Equal<typeof root.citationOf, typeof knowledge.citationOf>>,
  Expect<Equal<typeof root.formatKnowledge, typeof knowledge.formatKnowledge>>,
  Expect<Equal<typeof root.searchKnowledgeBases, typeof knowledge.searchKnowledgeBases>>,
  Expect<Equal<typeof root.AgenticMemoryMiddleware, typeof memory.AgenticMemoryMiddleware>>,
  Expect<Equal<typeof root.StaticMemoryMiddleware, typeof memory.StaticMemoryMiddleware>>,
  Expect<Equal<typeof root.KnowledgeMemoryBackend, typeof memory.KnowledgeMemoryBackend>>,
  Expect<Equal<typeof root.formatMemoryFile, typeof memory.formatMemoryFile>>,
  Expect<Equal<typeof root.parseMemoryFile, typeof memory.parseMemoryFile>>,
  Expect<Equal<typeof root.RecordingMiddleware, typeof recording.RecordingMiddleware>>,
  Expect<Equal<typeof root.ReplayChatModel, typeof recording.ReplayChatModel>>,
  Expect<Equal<typeof root.CassetteMismatchError, typeof recording.CassetteMismatchError>>,
  Expect<Equal<typeof root.CASSETTE_VERSION, typeof recording.CASSETTE_VERSION>>,
  Expect<Equal<typeof root.stableEvents, typeof recording.stableEvents>>,
  Expect<Equal<typeof root.TTSMiddleware, typeof tts.TTSMiddleware>>,
  Expect<Equal<typeof root.OpenAITextToSpeech, typeof tts.OpenAITextToSpeech>>,
];

// ── Root aliases: the same types ──────────────────────────────────────────────────────────────
export type RootTypes = [
  Expect<Equal<root.InMemoryKnowledgeBase, knowledge.InMemoryKnowledgeBase>>,
  Expect<Equal<root.InMemoryKnowledgeBaseOptions, knowledge.InMemoryKnowledgeBaseOptions>>,
  Expect<Equal<root.EmbeddingsLike, knowledge.EmbeddingsLike>>,
  Expect<Equal<root.KnowledgeAddResult, knowledge.KnowledgeAddResult>>,
  Expect<Equal<root.KnowledgeBase, knowledge.KnowledgeBase>>,
  Expect<Equal<root.KnowledgeDocument, knowledge.KnowledgeDocument>>,
  Expect<Equal<root.KnowledgeFilter, knowledge.KnowledgeFilter>>,
  Expect<Equal<root.KnowledgeHit, knowledge.KnowledgeHit>>,
  Expect<Equal<root.KnowledgeSearchOptions, knowledge.KnowledgeSearchOptions>>,
  Expect<Equal<root.VectorStoreKnowledgeBase, knowledge.VectorStoreKnowledgeBase>>,
  Expect<Equal<root.VectorStoreKnowledgeBaseOptions, knowledge.VectorStoreKnowledgeBaseOptions>>,
  Expect<Equal<root.VectorStoreLike, knowledge.VectorStoreLike>>,
  Expect<Equal<root.FusedHit, knowledge.FusedHit>>,
  Expect<Equal<root.ReciprocalRankFusionOptions, knowledge.ReciprocalRankFusionOptions>>,
  Expect<Equal<root.KnowledgeSearchResult, knowledge.KnowledgeSearchResult>>,
  Expect<Equal<root.SearchKnowledgeBasesOptions, knowledge.SearchKnowledgeBasesOptions>>,
  Expect<Equal<root.RAGMiddleware, knowledge.RAGMiddleware>>,
  Expect<Equal<root.RAGOptions, knowledge.RAGOptions>>,
  Expect<Equal<root.RagRetrievedValue, knowledge.RagRetrievedValue>>,
  Expect<Equal<root.AgenticMemoryMiddleware, memory.AgenticMemoryMiddleware>>,
  Expect<Equal<root.AgenticMemoryOptions, memory.AgenticMemoryOptions>>,
  Expect<Equal<root.StaticMemoryMiddleware, memory.StaticMemoryMiddleware>>,
  Expect<Equal<root.MemoryExchange, memory.MemoryExchange>>,
  Expect<Equal<root.MemoryExtractor, memory.MemoryExtractor>>,
  Expect<Equal<root.StaticMemoryOptions, memory.StaticMemoryOptions>>,
  Expect<Equal<root.KnowledgeMemoryBackend, memory.KnowledgeMemoryBackend>>,
  Expect<Equal<root.KnowledgeMemoryBackendOptions, memory.KnowledgeMemoryBackendOptions>>,
  Expect<Equal<root.Memory, memory.Memory>>,
  Expect<Equal<root.MemoryBackend, memory.MemoryBackend>>,
  Expect<Equal<root.MemoryHeader, memory.MemoryHeader>>,
  Expect<Equal<memory.EmbeddingsLike, knowledge.EmbeddingsLike>>,
  Expect<Equal<root.RecordingMiddleware, recording.RecordingMiddleware>>,
  Expect<Equal<root.RecordingOptions, recording.RecordingOptions>>,
  Expect<Equal<root.ReplayChatModel, recording.ReplayChatModel>>,
  Expect<Equal<root.ReplayChatModelOptions, recording.ReplayChatModelOptions>>,
  Expect<Equal<root.CassetteMismatchError, recording.CassetteMismatchError>>,
  Expect<Equal<root.Cassette, recording.Cassette>>,
  Expect<Equal<root.RecordedModelCall, recording.RecordedModelCall>>,
  Expect<Equal<root.RecordedModelRequest, recording.RecordedModelRequest>>,
  Expect<Equal<root.RecordedReply, recording.RecordedReply>>,
  Expect<Equal<root.TTSMiddleware, tts.TTSMiddleware>>,
  Expect<Equal<root.TTSOptions, tts.TTSOptions>>,
  Expect<Equal<root.OpenAITextToSpeech, tts.OpenAITextToSpeech>>,
  Expect<Equal<root.OpenAITextToSpeechOptions, tts.OpenAITextToSpeechOptions>>,
  Expect<Equal<root.SpeechOptions, tts.SpeechOptions>>,
  Expect<Equal<root.TextToSpeech, tts.TextToSpeech>>,
];

// @ts-expect-error a cross-cutting layer is not exported by a feature entry
void knowledge.RetryMiddleware;
