import { Type, type Static } from 'typebox';

export const LoginBody = Type.Object(
  {
    email: Type.String({ maxLength: 255 }),
    password: Type.String({ maxLength: 1024 }),
    totp: Type.Optional(
      Type.String({ maxLength: 16, description: 'the 6-digit code, when two-factor sign-in is on' }),
    ),
    recoveryCode: Type.Optional(
      Type.String({ maxLength: 64, description: 'a one-time recovery code instead of `totp`' }),
    ),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const LoginResponse = Type.Object({
  token: Type.String({ description: 'the session token, also set as the HttpOnly cookie `session`' }),
});
