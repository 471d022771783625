/**
 * A SAML 2.0 identity provider for tests (issue 44): a key and a self-signed certificate made by openssl at start,
 * responses built here and signed with xml-crypto (the library node-saml verifies with), and a small HTTP server
 * whose sign-on address answers an AuthnRequest with a page that posts the signed response to the ACS, as an IdP's
 * HTTP-POST binding does. The tests shape each response (signed or not, times, audience, InResponseTo…).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

export interface TestPerson {
  nameId: string;
  email?: string;
  name?: string;
  groups?: string[];
}

export interface ResponseOptions {
  acsUrl: string;
  audience: string;
  person: TestPerson;
  inResponseTo?: string;
  /** Which element carries a signature: the assertion (default), the response, both, or none. */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  assertionId?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  destination?: string;
  recipient?: string;
  issuer?: string;
}

export interface TestSamlIdp {
  entityId: string;
  ssoUrl: string;
  certificate: string;
  /** The IdP's metadata XML, as an admin would upload it. */
  metadata(): string;
  /** A SAMLResponse as the IdP would post it (base64). */
  response(options: ResponseOptions): string;
  /** The XML of a response, before base64 (to tamper with). */
  responseXml(options: ResponseOptions): string;
  /** Who the sign-on address signs in next, and how (the browser test). */
  next: { person: TestPerson; acsUrl: string; audience: string } | undefined;
  close(): Promise<void>;
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';

/** A key and a self-signed certificate, valid two days (openssl, as found on the PATH). */
export function keyAndCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'casebook-saml-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-sha256',
        '-days',
        '2',
        '-subj',
        '/CN=casebook-test-idp',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sign(xml: string, key: string, cert: string, element: 'Assertion' | 'Response'): string {
  const sig = new SignedXml({
    privateKey: key,
    publicCert: cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const target = `//*[local-name(.)='${element}']`;
  sig.addReference({
    xpath: target,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: [
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#',
    ],
  });
  sig.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `${target}/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return sig.getSignedXml();
}

export async function startSamlIdp(): Promise<TestSamlIdp> {
  const { key, cert } = keyAndCertificate();
  const certBody = cert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const idp: TestSamlIdp = {
    entityId: 'https://idp.test.example/saml',
    ssoUrl: '',
    certificate: cert,
    next: undefined,
    metadata: () =>
      `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${idp.entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="encryption"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>MIIBbogus</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>
${certBody}
    </ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${idp.ssoUrl}/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${idp.ssoUrl}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`,
    responseXml(o) {
      const now = new Date();
      const issue = now.toISOString();
      const notBefore = (o.notBefore ?? new Date(now.getTime() - 30_000)).toISOString();
      const notOnOrAfter = (o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
      const id = o.assertionId ?? `_a${randomUUID()}`;
      const issuer = o.issuer ?? idp.entityId;
      const irt = o.inResponseTo === undefined ? '' : ` InResponseTo="${esc(o.inResponseTo)}"`;
      const attrs: string[] = [];
      const attr = (name: string, values: string[]) =>
        attrs.push(
          `<saml:Attribute Name="${name}">${values.map((v) => `<saml:AttributeValue>${esc(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`,
        );
      if (o.person.email !== undefined) attr('email', [o.person.email]);
      if (o.person.name !== undefined) attr('name', [o.person.name]);
      if (o.person.groups !== undefined) attr('groups', o.person.groups);
      const assertion =
        `<saml:Assertion xmlns:saml="${SAML}" ID="${id}" Version="2.0" IssueInstant="${issue}">` +
        `<saml:Issuer>${esc(issuer)}</saml:Issuer>` +
        `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(o.person.nameId)}</saml:NameID>` +
        `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(o.recipient ?? o.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
        `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
        `<saml:AuthnStatement AuthnInstant="${issue}" SessionIndex="${id}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
        (attrs.length > 0 ? `<saml:AttributeStatement>${attrs.join('')}</saml:AttributeStatement>` : '') +
        `</saml:Assertion>`;
      const mode = o.sign ?? 'assertion';
      const signedAssertion =
        mode === 'assertion' || mode === 'both' ? sign(assertion, key, cert, 'Assertion') : assertion;
      const response =
        `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${issue}" Destination="${esc(o.destination ?? o.acsUrl)}"${irt}>` +
        `<saml:Issuer>${esc(issuer)}</saml:Issuer>` +
        `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
        signedAssertion +
        `</samlp:Response>`;
      return mode === 'response' || mode === 'both' ? signResponse(response) : response;
    },
    response: (o) => Buffer.from(idp.responseXml(o)).toString('base64'),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  // The response's own signature goes after its Issuer, the first one in document order (the response's).
  const signResponse = (xml: string) => {
    const sig = new SignedXml({
      privateKey: key,
      publicCert: cert,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    sig.addReference({
      xpath: "/*[local-name(.)='Response']",
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: [
        'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
        'http://www.w3.org/2001/10/xml-exc-c14n#',
      ],
    });
    sig.computeSignature(xml, {
      prefix: 'ds',
      location: { reference: "/*[local-name(.)='Response']/*[local-name(.)='Issuer']", action: 'after' },
    });
    return sig.getSignedXml();
  };

  // The sign-on address (HTTP-Redirect binding in): a page that posts the response for `next` to the ACS.
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://idp.invalid');
    const request = url.searchParams.get('SAMLRequest');
    const who = idp.next;
    if (!request || !who) {
      res.writeHead(400).end('no SAMLRequest or nobody to sign in');
      return;
    }
    const xml = inflateRawSync(Buffer.from(request, 'base64')).toString('utf8');
    const id = /\sID="([^"]+)"/.exec(xml)?.[1];
    const saml = idp.response({ ...who, inResponseTo: id });
    const relay = url.searchParams.get('RelayState') ?? '';
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html><body><form id="f" method="post" action="${esc(who.acsUrl)}">` +
          `<input type="hidden" name="SAMLResponse" value="${esc(saml)}"/>` +
          `<input type="hidden" name="RelayState" value="${esc(relay)}"/>` +
          `<noscript><button>Continue</button></noscript></form>` +
          `<script>document.getElementById('f').submit()</script></body></html>`,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  idp.ssoUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/sso`;
  return idp;
}
