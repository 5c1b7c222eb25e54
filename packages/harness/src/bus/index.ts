// What the rest of the harness may use of bus/: its other files are its own.
export { InMemoryMessageBus, type InMemoryMessageBusOptions } from './in-memory-message-bus.js';
export { type LogEntry, type LogPage, type LogReadOptions, type MessageBus } from './message-bus.js';
