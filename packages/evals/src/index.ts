// @rxscope/evals — score agents on datasets: cases, scorers, the runner, comparisons and the CI
// gate. Explicit named exports only. Files: @rxscope/evals/node; the jest matcher: @rxscope/evals/jest.
export { EvalError } from './eval-error.js';
export type { EvalErrorCode } from './eval-error.js';
export type {
  ArgumentMatcher,
  Dataset,
  DatasetLineError,
  EvalCase,
  EvalExpected,
  ExpectedToolCall,
} from './dataset/eval-case.js';
export { MAX_LINE_CHARS, parseJsonlDataset } from './dataset/jsonl.js';
export { caseFromSession, casesFromCassette } from './dataset/from-recording.js';
export { replySample } from './scorers/reply-sample.js';
export type { ReplySample, ToolCallRecord } from './scorers/reply-sample.js';
export { applyScorer, errorScore } from './scorers/scorer.js';
export type { Score, Scorer, ScoreVerdict } from './scorers/scorer.js';
export { matchesArguments } from './scorers/argument-matcher.js';
export { trajectory } from './scorers/trajectory.js';
export type { TrajectoryMode, TrajectoryOptions } from './scorers/trajectory.js';
export { exactAnswer, includesAnswer, numericAnswer, regexAnswer } from './scorers/answer.js';
export type {
  ExactAnswerOptions,
  IncludesAnswerOptions,
  NumericAnswerOptions,
  RegexAnswerOptions,
} from './scorers/answer.js';
export { jsonSchemaAnswer } from './scorers/json-schema-answer.js';
export type { JsonSchemaAnswerOptions } from './scorers/json-schema-answer.js';
export { costBudget, latencyBudget } from './scorers/budget.js';
export type { CostBudgetOptions, LatencyBudgetOptions } from './scorers/budget.js';
export { noDeniedTool, noSecret, replyGrammar } from './scorers/safety.js';
export type { NoDeniedToolOptions, NoSecretOptions, ReplyGrammarOptions } from './scorers/safety.js';
export { llmJudge } from './scorers/llm-judge.js';
export type { LlmJudgeOptions } from './scorers/llm-judge.js';
export { runEval } from './runner/run-eval.js';
export type { CaseResult, EvalEvent, EvalRun, RunEvalOptions } from './runner/run-eval.js';
export { summarize, tQuantile95 } from './runner/summary.js';
export type { EvalSummary, ScorerSummary } from './runner/summary.js';
export { compareRuns } from './runner/compare.js';
export type { ComparisonRow, RunComparison } from './runner/compare.js';
export { checkThresholds } from './runner/gate.js';
export type { Threshold, Thresholds } from './runner/gate.js';
export { formatComparison, formatSummary, parseEvalRun } from './runner/format.js';
export { defineEvalSuite } from './runner/suite.js';
export type { EvalSuite } from './runner/suite.js';
