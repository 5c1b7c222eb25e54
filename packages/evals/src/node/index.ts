// @rxscope/evals/node — datasets from files (JSONL, cassettes). Node only.
export { loadCassetteCases, loadJsonlDataset, MAX_DATASET_BYTES } from './load-dataset.js';
