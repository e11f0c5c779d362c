import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { privacyPolicyQuery } from '@/api/privacy-policy';
import { Markdown } from '@/components/ui/markdown';
import { QueryStatus } from '@/components/ui/query-status';
import { paths } from '@/config/paths';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * `/privacy-policy`: reachable signed in or not (spec section 2), linked from the login
 * and sign-up screens. The spec gives no text: the cloud answers the operator's own
 * (Markdown, from its configuration) or its default policy, which says what this
 * deployment stores, for how long and who sees it; with the operator's contact when
 * configured.
 */
export default function PrivacyPolicyScreen() {
  const q = useQuery(privacyPolicyQuery());
  const text = q.data?.markdown ?? '';
  // The text's own title stands for the page's.
  const titled = /^\s*#\s/.test(text);
  const contact = q.data?.contact ?? null;
  return (
    <section className="privacy-policy">
      {!titled ? <h1>Privacy Policy</h1> : null}
      <QueryStatus pending={q.isPending} error={q.error} what="The privacy policy" />
      {q.data ? <Markdown text={text} /> : null}
      {contact !== null ? (
        <p>
          Questions about your data: {EMAIL.test(contact) ? <a href={`mailto:${contact}`}>{contact}</a> : contact}
        </p>
      ) : null}
      <p className="auth-links">
        <Link to={paths.root}>Back</Link>
      </p>
    </section>
  );
}
