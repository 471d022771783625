export {};
//# sourceMappingURL=repository.js.map