import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { requestTenant } from '../../http/auth.js';
import { authenticateSession, SESSION_COOKIE } from '../auth/auth.service.js';
import * as service from './oauth.service.js';

/**
 * The device sign-in's verification page (`verification_uri`), until the web application takes it over: a small
 * server-rendered page. It signs the person in through the sign-in API (`POST /api/auth/login`, with the second
 * factor when on), then shows the code and the client and approves or denies through
 * `POST /api/oauth/device/approve|deny`. No inline script or style: the policy below allows only /device.js.
 */
const CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Casebook</title>
<script src="/device.js" defer></script></head>
<body><main>
<h1>${esc(title)}</h1>
${body}
<p id="result" role="status"></p>
</main></body></html>
`;
}

const enterCodeForm = (value = '') => `<form method="get" action="/device">
<label>Code shown on your device <input name="user_code" value="${esc(value)}" autocomplete="off" required></label>
<button type="submit">Continue</button>
</form>`;

const signInForm = (
  userCode: string,
) => `<p>Sign in to approve the sign-in of a device with the code <strong>${esc(userCode)}</strong>.</p>
<form id="sign-in" method="post" action="/device">
<label>E-mail <input name="email" type="email" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<label>Two-factor code or recovery code (when two-factor sign-in is on) <input name="second_factor" autocomplete="one-time-code"></label>
<button type="submit">Sign in</button>
</form>`;

const decideForm = (
  view: service.DeviceCodeView,
) => `<p><strong>${esc(view.clientName)}</strong> asks to act as you on this service.</p>
<p>Check that your device shows this code: <strong id="user-code">${esc(view.userCode)}</strong></p>
<p>Approve only if you started this sign-in yourself, just now. If someone sent you this link, deny it.</p>
<form id="decide" method="post" action="/device" data-user-code="${esc(view.userCode)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;

function send(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(title, body));
}

/** The user id of a valid session cookie of the request's tenant, else undefined. */
async function signedInUser(req: FastifyRequest, tenantId: string): Promise<number | undefined> {
  const token = req.cookies?.[SESSION_COOKIE];
  if (!token) return undefined;
  const check = await authenticateSession(
    req.server.db,
    { tenantId, ip: req.ip, userAgent: req.headers['user-agent'] ?? '' },
    token,
  );
  return check.ok && !check.tenantSuspended ? check.userId : undefined;
}

const SCRIPT = `'use strict';
(function () {
  var result = document.getElementById('result');
  function show(text) { result.textContent = text; }
  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body)
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) { return { ok: res.ok, data: data }; });
    });
  }
  var signIn = document.getElementById('sign-in');
  if (signIn) signIn.addEventListener('submit', function (event) {
    event.preventDefault();
    var form = new FormData(signIn);
    var body = { email: String(form.get('email')), password: String(form.get('password')) };
    var second = String(form.get('second_factor') || '').trim();
    if (/^\\d{6}$/.test(second)) body.totp = second; else if (second) body.recoveryCode = second;
    post('/api/auth/login', body).then(function (r) {
      if (r.ok) location.reload(); else show(r.data.message || 'Sign-in failed');
    });
  });
  var decide = document.getElementById('decide');
  if (decide) decide.addEventListener('submit', function (event) {
    event.preventDefault();
    var deny = event.submitter && event.submitter.value === 'deny';
    post('/api/oauth/device/' + (deny ? 'deny' : 'approve'), { user_code: decide.dataset.userCode }).then(function (r) {
      show(r.data.message || (r.ok ? 'Done' : 'Something went wrong'));
      if (r.ok) decide.hidden = true;
    });
  });
})();
`;

export const devicePageRoutes: FastifyPluginAsync = async (app) => {
  const { db, config } = app;

  app.get(
    '/device.js',
    { config: { access: { public: true } }, schema: { hide: true } },
    async (_req, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .send(SCRIPT),
  );

  app.get(
    '/device',
    { config: { access: { public: true } }, schema: { hide: true } },
    async (req: FastifyRequest<{ Querystring: { user_code?: string; code?: string } }>, reply) => {
      const raw = String(req.query.user_code ?? req.query.code ?? '').slice(0, 64);
      let tenantId: string;
      try {
        tenantId = await requestTenant(db, config, req);
      } catch {
        return send(reply, 404, 'Unknown address', '<p>No team signs in at this address.</p>');
      }
      if (raw.trim() === '') {
        return send(reply, 200, 'Sign in a device', enterCodeForm());
      }
      if ((await signedInUser(req, tenantId)) === undefined) {
        return send(reply, 200, 'Sign in a device', signInForm(raw));
      }
      let view: service.DeviceCodeView;
      try {
        view = await service.describeUserCode(db, tenantId, raw);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
        return send(reply, 404, 'Code not valid', `<p>${esc(err.message)}.</p>${enterCodeForm(raw)}`);
      }
      switch (view.status) {
        case 'expired':
          return send(reply, 410, 'Code expired', `<p>${esc(service.codeMessages.EXPIRED_CODE)}.</p>`);
        case 'denied':
          return send(
            reply,
            409,
            'Sign-in denied',
            '<p>This sign-in was denied: the device got no access.</p>',
          );
        case 'approved':
          return send(
            reply,
            409,
            'Already approved',
            '<p>This code was approved already: you can return to your device.</p>',
          );
        default:
          return send(reply, 200, 'Approve a device', decideForm(view));
      }
    },
  );
};
