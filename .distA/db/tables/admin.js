export {};
//# sourceMappingURL=admin.js.map