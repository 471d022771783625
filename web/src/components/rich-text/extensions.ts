import StarterKit from '@tiptap/starter-kit';
import { hrefAllowed } from './sanitize';

/**
 * The rich editor's extensions, configured once. StarterKit brings the one Link extension; it is given no
 * `protocols`: http, https and mailto are linkify's own schemes already, and registering them again made linkify
 * print "already initialized" once per scheme for every editor opened after the first. Which links are kept is
 * the sanitiser's rule (the service's D22 allow-list), asked directly.
 */
export const richTextExtensions = () => [
  StarterKit.configure({ link: { openOnClick: false, isAllowedUri: (url) => hrefAllowed(url) } }),
];
