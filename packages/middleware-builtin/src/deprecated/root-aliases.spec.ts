import * as root from '../index.js';
import * as knowledge from '../knowledge/index.js';
import * as memory from '../memory/index.js';
import * as recording from '../recording/index.js';
import * as tts from '../tts/index.js';

/** The runtime values that moved from the root entry to each feature entry, one minor ago. */
const MOVED: Record<string, readonly string[]> = {
  knowledge: [
    'InMemoryKnowledgeBase',
    'RAGMiddleware',
    'VectorStoreKnowledgeBase',
    'citationOf',
    'formatKnowledge',
    'reciprocalRankFusion',
    'searchKnowledgeBases',
  ],
  memory: [
    'AgenticMemoryMiddleware',
    'KnowledgeMemoryBackend',
    'StaticMemoryMiddleware',
    'formatMemoryFile',
    'parseMemoryFile',
  ],
  recording: ['CASSETTE_VERSION', 'CassetteMismatchError', 'RecordingMiddleware', 'ReplayChatModel', 'stableEvents'],
  tts: ['OpenAITextToSpeech', 'TTSMiddleware'],
};
const entries: Record<string, Record<string, unknown>> = { knowledge, memory, recording, tts };
const rootValues = root as unknown as Record<string, unknown>;

describe('the root entry keeps deprecated aliases of the names that moved to feature entries', () => {
  for (const [subpath, entry] of Object.entries(entries)) {
    it(`every name that moved to /${subpath} is the same value at the root`, () => {
      for (const name of MOVED[subpath]!) {
        expect({ name, inEntry: name in entry, same: rootValues[name] === entry[name] }).toEqual({
          name,
          inEntry: true,
          same: true,
        });
      }
    });

    it(`names added to /${subpath} since the move stay off the root (it keeps the cross-cutting layers)`, () => {
      const added = Object.keys(entry).filter((name) => !MOVED[subpath]!.includes(name));
      expect(added.filter((name) => name in rootValues)).toEqual([]);
    });
  }
});
