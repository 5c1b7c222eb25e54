export interface SnippetCheck {
  page: string;
  file: string;
  ok: boolean;
  why: string;
}
export declare function asDocs(file: string, root?: string): string;
export declare function check(root?: string): SnippetCheck[];
export declare function write(root?: string): string[];
