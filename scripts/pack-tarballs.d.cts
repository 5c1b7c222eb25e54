export interface PackedTarball {
  name: string;
  version: string;
  tarball: string;
}
export declare function packTarballs(dest: string): PackedTarball[];
export declare function publicPackages(): { dir: string; name: string }[];
export declare function tarballProblems(manifest: Record<string, unknown>, files: readonly string[]): string[];
