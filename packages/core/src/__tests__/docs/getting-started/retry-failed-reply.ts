import { catchError, of, retry } from 'rxjs';
import { throwOnErrorEnd, type Agent, type AgentError } from '../../../index.js';

export const weatherOrApology = (agent: Agent) =>
  agent.reply('What is the weather in Paris?').pipe(
    throwOnErrorEnd(),
    retry(1), // subscribes again: a new reply (the failed one stays in the conversation)
    catchError((e: unknown) => of(`sorry: ${(e as AgentError).info.message}`)),
  );
