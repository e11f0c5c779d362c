/** Every route of the portal (spec section 2), at the spec's exact paths. */
export const paths = {
  root: '/',
  // Public.
  login: '/login',
  adminLogin: '/admin-login',
  signup: '/signup',
  privacyPolicy: '/privacy-policy',
  resendVerification: '/resend-verification',
  verifyEmail: '/verify-email/:token',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password/:token',
  changePassword: '/change-password',
  /** Choose how to receive one-time codes (e-mail, authenticator app, SMS). */
  otpSelection: '/otp-selection',
  /** Enter the 6-digit code. */
  otpVerification: '/otp-verification',
  /** Where the single sign-on provider sends the browser back (issue 28). */
  ssoCallback: '/sso-callback',
  // Top level.
  organizations: '/organizations',
  cycleTrace: '/cycle-trace/:traceId?',
  /** The administrators' changes (super admin, organisation admin; issue 28). */
  auditLog: '/audit-log',
  // Labeler area.
  labeler: {
    tasks: '/labeler/tasks',
    setting: '/labeler/setting',
    videos: '/labeler/videos/:organization/:taskName/:taskId',
  },
  // User area.
  user: {
    temp: '/user/temp',
    home: '/user/home',
    process: '/user/process',
    record: '/user/record',
    train: '/user/train',
    deploy: '/user/deploy',
    models: '/user/models',
    /** Validation groups and runs (not a spec route: docs/decisions.md). */
    validation: '/user/validation',
    tasks: '/user/tasks',
    devices: '/user/devices',
    device: '/user/devices/:id',
    opc: '/user/opc',
    cameras: '/user/cameras',
    /** The sidebar's path of the Cameras screen. */
    remoteDevices: '/user/remote-devices',
    analytics: '/user/analytics',
    lineAnalytics: '/user/line-analytics',
    trace: '/user/trace',
    traceItem: '/user/trace/:traceId',
    orgUsers: '/user/org-users',
    setting: '/user/setting',
    userManual: '/user/user-manual',
    fundamentals: '/user/fundamentals',
    addDevice: '/user/add-device',
    labelData: '/user/label-data',
    issueCenter: '/user/issue-center',
    /** The Kaizen assistant (the spec names no route: docs/decisions.md). */
    assistant: '/user/assistant',
    line: '/user/line',
    lineVisibility: '/user/line-visibility',
  },
  // Admin layout (super admin).
  admin: {
    tamperingRequests: '/admin/tampering-requests',
    organizations: '/admin/organizations',
    users: '/admin/users',
    roles: '/admin/roles',
    pendingUsers: '/admin/pending-users',
    devices: '/admin/devices',
    archivedCycles: '/admin/archived-cycles',
    tasks: '/admin/tasks',
    updates: '/admin/updates',
    instances: '/admin/instances',
    trainedTasks: '/admin/trained-tasks',
    annotations: '/admin/annotations',
    labelers: '/admin/labelers',
    taskVideos: '/admin/task-videos/:taskId/:taskName',
    userReport: '/admin/user-report',
    barcode: '/admin/barcode',
    awsToken: '/admin/aws-token',
    featureControl: '/admin/feature-control',
    modelVersions: '/admin/model-versions',
    modelTypes: '/admin/model-types',
    eventNotification: '/admin/event-notification',
  },
} as const;

/** The cycle-trace screen's address for `traceId` (none: the bare screen). */
export function cycleTracePath(traceId?: string): string {
  return traceId ? `/cycle-trace/${encodeURIComponent(traceId)}` : '/cycle-trace';
}
