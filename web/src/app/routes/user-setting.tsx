import ProfileScreen from '@/features/account/components/profile-screen';
import { NotificationsSection } from '@/features/push/components/notifications-section';

/**
 * `/user/setting` (Profile Setting in the organisation's area): the profile, with the
 * browser's push notifications below it (issue 31). Composed here because a feature
 * does not import another; the labeler's `/labeler/setting` has no organisation to be
 * notified of, so it is the profile alone.
 */
export default function UserSettingScreen() {
  return (
    <>
      <ProfileScreen />
      <NotificationsSection />
    </>
  );
}
