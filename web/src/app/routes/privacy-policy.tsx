import { EmptyState } from '@/components/ui/empty-state';

/** `/privacy-policy`: the spec does not give its text. */
export default function PrivacyPolicyScreen() {
  return (
    <section>
      <h1>Privacy Policy</h1>
      <EmptyState title="The privacy policy has not been published on this server yet." />
    </section>
  );
}
