/** The closed list of error codes (D7) and the one table that maps them to HTTP statuses. */
export const ERROR_STATUS = {
    VALIDATION_FAILED: 400,
    UNAUTHORIZED: 401,
    FEATURE_NOT_AVAILABLE: 402,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    CONFLICT: 409,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    RATE_LIMITED: 429,
    INTERNAL: 500,
};
/** The only error services throw; the HTTP layer turns it into the D7 body. */
export class AppError extends Error {
    code;
    details;
    constructor(code, message, details) {
        super(message);
        this.code = code;
        this.details = details;
        this.name = 'AppError';
    }
    get status() {
        return ERROR_STATUS[this.code];
    }
}
export const badRequest = (message, path) => new AppError('VALIDATION_FAILED', message, path === undefined ? undefined : [{ path, message }]);
export const notFound = (message) => new AppError('NOT_FOUND', message);
export const forbidden = (message) => new AppError('FORBIDDEN', message);
export const conflict = (message) => new AppError('CONFLICT', message);
export const unauthorized = (message) => new AppError('UNAUTHORIZED', message);
//# sourceMappingURL=errors.js.map