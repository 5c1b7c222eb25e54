export { ScriptedChatModel } from './scripted-model.js';
export type { ScriptedChatModelOptions, TurnSource } from './scripted-model.js';
export { scriptedTurnEvents } from './scripted-turn.js';
export type { ScriptedTurn } from './scripted-turn.js';
export { ModelTestingController, TestModelCall } from './controller.js';
export type { ModelCallMatch } from './controller.js';
export { assertReplyGrammar, assertConsistentConversation } from './grammar.js';
