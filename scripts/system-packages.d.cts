export interface Facts {
  missing: string[];
  isRoot: boolean;
  passwordlessSudo: boolean;
  hasAptGet: boolean;
}
export type Decision =
  { kind: 'ready' } | { kind: 'install'; commands: string[][] } | { kind: 'stop'; message: string };
export declare const REQUIRED: ReadonlyArray<{
  name: string;
  why: string;
  present: (env: NodeJS.ProcessEnv) => boolean;
}>;
export declare function plan(facts: Facts): Decision;
export declare function probe(env?: NodeJS.ProcessEnv): Facts;
export declare function main(): number;
