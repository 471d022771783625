export {};
//# sourceMappingURL=execution.js.map