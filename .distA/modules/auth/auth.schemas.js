import { Type } from 'typebox';
export const LoginBody = Type.Object({
    email: Type.String({ maxLength: 255 }),
    password: Type.String({ maxLength: 1024 }),
    totp: Type.Optional(Type.String({ maxLength: 16, description: 'the 6-digit code, when two-factor sign-in is on' })),
    recoveryCode: Type.Optional(Type.String({ maxLength: 64, description: 'a one-time recovery code instead of `totp`' })),
}, { additionalProperties: false });
export const LoginResponse = Type.Object({
    token: Type.String({ description: 'the session token, also set as the HttpOnly cookie `session`' }),
});
export const RegisterBody = Type.Object({
    token: Type.String({ minLength: 1, maxLength: 256, description: 'the token of the invitation link' }),
    name: Type.String({ maxLength: 255 }),
    password: Type.String({ maxLength: 1024 }),
}, { additionalProperties: false });
export const RegisterResponse = Type.Object({ id: Type.Integer(), email: Type.String() });
export const InvitationTokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 256, description: 'the token of the invitation link' }) }, { additionalProperties: false });
export const InvitationPreview = Type.Object({
    email: Type.String(),
    role: Type.String(),
    expiresAt: Type.String(),
});
export const PasswordResetRequestBody = Type.Object({ email: Type.String({ maxLength: 255 }) }, { additionalProperties: false });
export const PasswordResetBody = Type.Object({
    token: Type.String({ minLength: 1, maxLength: 256, description: 'the token of the reset link' }),
    password: Type.String({ maxLength: 1024 }),
}, { additionalProperties: false });
//# sourceMappingURL=auth.schemas.js.map