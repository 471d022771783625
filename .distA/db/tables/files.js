/** Kysely table types of the uploaded files (migration 0004_files). */
export {};
//# sourceMappingURL=files.js.map