import { X509Certificate } from 'node:crypto';
import { readXml, XmlFileError } from '../../lib/xml.js';

/** What an IdP's metadata says of it: the fields a SAML provider needs (absent when the metadata lacks one). */
export interface IdpMetadata {
  entityId?: string;
  ssoUrl?: string;
  certificate?: string;
}

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const local = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * Reads an IdP's metadata (an EntityDescriptor, or the first IdP of an EntitiesDescriptor): the entity id, the
 * HTTP-Redirect SingleSignOnService and the first signing certificate of the IDPSSODescriptor. A DOCTYPE is refused
 * (src/lib/xml.ts). Throws XmlFileError on XML that cannot be read.
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  const out: IdpMetadata = {};
  const stack: string[] = [];
  let entity: string | undefined;
  let inIdp = false;
  let signingKey = false;
  let certText: string | undefined;
  readXml(xml, {
    open(name, attributes) {
      const n = local(name);
      stack.push(n);
      if (n === 'EntityDescriptor') entity = attributes.entityID;
      if (n === 'IDPSSODescriptor' && out.entityId === undefined) {
        inIdp = true;
        out.entityId = entity;
      }
      if (!inIdp) return;
      if (n === 'SingleSignOnService' && attributes.Binding === REDIRECT && out.ssoUrl === undefined) {
        out.ssoUrl = attributes.Location;
      }
      if (n === 'KeyDescriptor') signingKey = attributes.use === undefined || attributes.use === 'signing';
      if (n === 'X509Certificate' && signingKey && out.certificate === undefined) certText = '';
    },
    close(name) {
      const n = local(name);
      stack.pop();
      if (n === 'X509Certificate' && certText !== undefined) {
        out.certificate = certText.replace(/\s+/g, '');
        certText = undefined;
      }
      if (n === 'IDPSSODescriptor') inIdp = false;
      if (n === 'KeyDescriptor') signingKey = false;
    },
    text(text) {
      if (certText !== undefined) certText += text;
    },
  });
  if (stack.length > 0) throw new XmlFileError('malformed XML: unclosed elements');
  return out;
}

/**
 * A certificate as PEM, from PEM or its bare base64 body; undefined when it is not an X.509 certificate (a private
 * key pasted by mistake is refused so).
 */
export function normalizeCertificate(value: string): string | undefined {
  const body = value
    .replace(/-----BEGIN CERTIFICATE-----/, '')
    .replace(/-----END CERTIFICATE-----/, '')
    .replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return undefined;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return undefined;
  }
}
