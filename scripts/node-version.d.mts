/** Types of node-version.mjs, for the TypeScript that imports it (the test run's global setup, the tests). */
export declare const NODE_MINIMUM: [number, number, number];
export declare function nodeVersionProblem(version: string, executable?: string): string | null;
export declare function requireSupportedNode(): void;
