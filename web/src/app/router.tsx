/**
 * Every route of spec section 2 at its path. Screens load lazily (their own chunk,
 * with the 120 s time-out), but for the two most visits open first, the login and the
 * Dashboard, which come with the app's first script (issue 33: on a phone's slow link
 * a lazy screen is another round of requests before its first paint). The guard
 * (`guard.tsx`) decides who may open what. The Dashboard's route starts its figure
 * queries as it is matched.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { type RouteObject, createBrowserRouter, redirect } from 'react-router';

import { AppLayout } from '@/components/layouts/app-layout';
import { AuthLayout } from '@/components/layouts/auth-layout';
import { ErrorScreen } from '@/components/ui/error-screen';
import { paths } from '@/config/paths';
import { ROUTES } from '@/lib/access/routes';
import { prefetchDashboard } from '@/features/analytics/api/dashboard';
import HomeScreen from '@/features/analytics/components/home-screen';
import LoginScreen from '@/features/auth/components/login-screen';
import type { Site } from '@/lib/access/hosts';
import { lazyScreen } from '@/lib/lazy';

import { Guard } from './guard';
import { Shell } from './shell';

const title = (path: string) => ROUTES.find((r) => r.path === path)?.title ?? '';

const screen = (path: string, load: Parameters<typeof lazyScreen>[0]): RouteObject => ({
  path,
  lazy: lazyScreen(load),
  handle: { title: title(path) },
});

/** A screen of the first load (above): no chunk to wait for. */
const eager = (path: string, Component: ComponentType): RouteObject => ({ path, Component, handle: { title: title(path) } });

const u = paths.user;
const a = paths.admin;

/** What the routes' loaders start queries with. */
export type RouteData = { queryClient: QueryClient; site: Site };

/** The route tree; with `data`, the Dashboard's loader starts its queries (without
 * waiting for them). */
export const routesWith = (data?: RouteData): RouteObject[] => [
  {
    element: <Shell />,
    errorElement: <ErrorScreen />,
    // While the first screen's chunk (and loader) comes: index.html's first paint stays.
    hydrateFallbackElement: <p className="boot brand">gemba</p>,
    children: [
      {
        element: <Guard />,
        errorElement: <ErrorScreen />,
        children: [
          { path: paths.root, lazy: lazyScreen(() => import('./routes/root')) },
          {
            element: <AuthLayout />,
            children: [
              eager(paths.login, LoginScreen),
              screen(paths.adminLogin, () => import('@/features/auth/components/admin-login-screen')),
              screen(paths.otpSelection, () => import('@/features/auth/components/otp-selection-screen')),
              screen(paths.otpVerification, () => import('@/features/auth/components/otp-verification-screen')),
              screen(paths.ssoCallback, () => import('@/features/auth/components/sso-callback-screen')),
              screen(paths.organizations, () => import('@/features/auth/components/organizations-screen')),
              screen(paths.signup, () => import('@/features/account/components/signup-screen')),
              screen(paths.resendVerification, () => import('@/features/account/components/resend-verification-screen')),
              screen(paths.verifyEmail, () => import('@/features/account/components/verify-email-screen')),
              screen(paths.forgotPassword, () => import('@/features/account/components/forgot-password-screen')),
              screen(paths.resetPassword, () => import('@/features/account/components/reset-password-screen')),
              screen(paths.changePassword, () => import('@/features/account/components/change-password-screen')),
              screen(paths.privacyPolicy, () => import('./routes/privacy-policy')),
            ],
          },
          {
            element: <AppLayout />,
            children: [
              screen(paths.cycleTrace, () => import('@/features/analytics/components/cycle-trace-screen')),
              screen(paths.auditLog, () => import('@/features/admin/components/audit-log-screen')),
              screen(paths.labeler.tasks, () => import('@/features/labeling/components/labeler-tasks-screen')),
              screen(paths.labeler.setting, () => import('@/features/account/components/profile-screen')),
              screen(paths.labeler.videos, () => import('@/features/labeling/components/labeler-videos-screen')),
              screen(u.opc, () => import('@/features/opc/components/opc-screen')),
              screen(u.userManual, () => import('@/features/docs/components/user-manual-screen')),
              screen(u.fundamentals, () => import('@/features/docs/components/fundamentals-screen')),
              screen(u.temp, () => import('@/features/temp/components/temp-screen')),
              {
                ...eager(u.home, HomeScreen),
                loader: () => {
                  if (data) prefetchDashboard(data.queryClient, data.site);
                  return null;
                },
              },
              screen(u.analytics, () => import('@/features/analytics/components/analytics-screen')),
              screen(u.trace, () => import('@/features/analytics/components/trace-screen')),
              screen(u.issueCenter, () => import('@/features/analytics/components/issue-center-screen')),
              screen(u.assistant, () => import('@/features/assistant/components/assistant-screen')),
              screen(u.line, () => import('@/features/lines/components/lines-screen')),
              screen(u.lineAnalytics, () => import('@/features/lines/components/line-analytics-screen')),
              screen(u.lineVisibility, () => import('@/features/lines/components/line-visibility-screen')),
              screen(u.orgUsers, () => import('@/features/org-users/components/org-users-screen')),
              screen(u.setting, () => import('./routes/user-setting')),
              screen(u.process, () => import('@/features/operations/components/define-operation-screen')),
              screen(u.tasks, () => import('@/features/operations/components/tasks-screen')),
              screen(u.devices, () => import('@/features/devices/components/devices-screen')),
              screen(u.device, () => import('@/features/devices/components/device-screen')),
              screen(u.addDevice, () => import('@/features/devices/components/add-device-screen')),
              // Both paths are the Cameras screen (docs/decisions.md "Cameras at both paths").
              screen(u.cameras, () => import('@/features/cameras/components/cameras-screen')),
              screen(u.remoteDevices, () => import('@/features/cameras/components/cameras-screen')),
              screen(u.record, () => import('@/features/recording/components/record-screen')),
              screen(u.labelData, () => import('@/features/labeling/components/label-screen')),
              screen(u.train, () => import('@/features/training/components/train-screen')),
              screen(u.deploy, () => import('@/features/models/components/deploy-screen')),
              screen(u.models, () => import('@/features/models/components/models-screen')),
              screen(u.validation, () => import('@/features/validation/components/validation-screen')),
              // trace/{traceId} is the cycle-trace screen, keeping the query.
              {
                path: u.traceItem,
                loader: ({ params, request }) =>
                  redirect(`/cycle-trace/${encodeURIComponent(params.traceId ?? '')}${new URL(request.url).search}`),
              },
              screen(a.organizations, () => import('@/features/admin/components/organizations-screen')),
              screen(a.users, () => import('@/features/admin/components/users-screen')),
              screen(a.roles, () => import('@/features/admin/components/roles-screen')),
              screen(a.pendingUsers, () => import('@/features/admin/components/pending-users-screen')),
              screen(a.modelVersions, () => import('@/features/models/components/org-model-versions-screen')),
              screen(a.modelTypes, () => import('@/features/models/components/model-types-screen')),
              screen(a.archivedCycles, () => import('@/features/admin/components/archived-cycles-screen')),
              screen(a.updates, () => import('@/features/releases/components/updates-screen')),
              screen(a.instances, () => import('@/features/releases/components/instances-screen')),
              screen(a.devices, () => import('@/features/admin/components/devices-screen')),
              screen(a.eventNotification, () => import('@/features/admin/components/event-notifications-screen')),
              screen(a.featureControl, () => import('@/features/admin/components/feature-control-screen')),
              screen(a.tasks, () => import('@/features/admin/components/admin-tasks-screen')),
              screen(a.trainedTasks, () => import('@/features/admin/components/trained-tasks-screen')),
              screen(a.taskVideos, () => import('@/features/admin/components/task-videos-screen')),
              screen(a.userReport, () => import('@/features/admin/components/user-report-screen')),
              screen(a.labelers, () => import('@/features/admin/components/labelers-screen')),
              screen(a.annotations, () => import('@/features/admin/components/annotations-screen')),
              screen(a.tamperingRequests, () => import('@/features/admin/components/tampering-requests-screen')),
              screen(a.barcode, () => import('@/features/admin/components/barcodes-screen')),
              screen(a.awsToken, () => import('@/features/service-tokens/components/service-tokens-screen')),
            ],
          },
          { path: '*', lazy: lazyScreen(() => import('./routes/not-found')) },
        ],
      },
    ],
  },
];

export function createRouter(data: RouteData) {
  return createBrowserRouter(routesWith(data));
}
