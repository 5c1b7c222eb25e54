import * as root from '../index.js';
import * as knowledge from '../knowledge/index.js';
import * as memory from '../memory/index.js';
import * as recording from '../recording/index.js';
import * as tts from '../tts/index.js';

/** Every runtime value of each feature entry, which the root entry still exports as a deprecated alias. */
const entries: Record<string, Record<string, unknown>> = { knowledge, memory, recording, tts };

describe('the root entry keeps deprecated aliases of the names that moved to feature entries', () => {
  for (const [subpath, entry] of Object.entries(entries)) {
    it(`every runtime export of /${subpath} is the same value at the root`, () => {
      const names = Object.keys(entry);
      expect(names.length).toBeGreaterThan(0);
      const rootValues = root as unknown as Record<string, unknown>;
      for (const name of names) {
        expect({ name, same: rootValues[name] === entry[name] }).toEqual({ name, same: true });
      }
    });
  }

  it('names every moved runtime value', () => {
    expect(Object.keys(knowledge).sort()).toEqual([
      'InMemoryKnowledgeBase',
      'RAGMiddleware',
      'VectorStoreKnowledgeBase',
      'citationOf',
      'formatKnowledge',
      'reciprocalRankFusion',
      'searchKnowledgeBases',
    ]);
    expect(Object.keys(memory).sort()).toEqual([
      'AgenticMemoryMiddleware',
      'KnowledgeMemoryBackend',
      'StaticMemoryMiddleware',
      'formatMemoryFile',
      'parseMemoryFile',
    ]);
    expect(Object.keys(recording).sort()).toEqual([
      'CASSETTE_VERSION',
      'CassetteMismatchError',
      'RecordingMiddleware',
      'ReplayChatModel',
      'stableEvents',
    ]);
    expect(Object.keys(tts).sort()).toEqual(['OpenAITextToSpeech', 'TTSMiddleware']);
  });
});
