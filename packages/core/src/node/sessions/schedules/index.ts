export { InMemorySessionScheduler } from './in-memory-session-scheduler.js';
export { checkSchedule, InvalidScheduleError, nextCronTime } from './session-schedule.js';
export type { SessionSchedule, SessionScheduleOptions, SessionScheduler } from './session-schedule.js';
