/**
 * Agent releases (spec section 7 "Binary deployment", issue 30), the super admin's
 * (`ManageReleases`): upload a signed binary (the file whole as the request body, with
 * its progress), the paged list, download, move between dev and prod, stop or go on
 * with a roll-out, delete; a release's roll-out device by device; the fleet (Instances).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type {
  Instance,
  MoveRelease,
  Msg,
  Page,
  Release,
  ReleaseDeployment,
  ReleasePatch,
} from '@/api/generated';
import { ROLLOUT_REFRESH_MS } from '@/config/constants';
import { api } from '@/lib/api-client';

import type { Environment, ReleaseFields } from '../releases';

export const releasesKey = ['releases'] as const;
export const instancesKey = ['instances'] as const;

export const releasesPageQuery = (page: number) =>
  queryOptions({
    queryKey: [...releasesKey, 'page', page],
    queryFn: () => api.get<Page<Release>>('binary_deployment/previous_releases/', { query: { page } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** A release's roll-out, asked again every few seconds while it rolls out. */
export const deploymentQuery = (id: number) =>
  queryOptions({
    queryKey: [...releasesKey, 'deployment', id],
    queryFn: () => api.get<ReleaseDeployment>(`binary_deployment/${id}/latest_deployment/`),
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.release.currentState === 'rolling_out' ? ROLLOUT_REFRESH_MS : false),
  });

/** Uploads `file` as a release; `onProgress` hears the bytes sent. */
export const uploadRelease = (file: File, f: ReleaseFields, onProgress: (sent: number, total: number) => void) =>
  api.post<Release>('binary_deployment/', file, {
    query: { environment: f.environment, branch: f.branch.trim(), version: f.version.trim(), target: f.target, signature: f.signature.trim() },
    onUploadProgress: onProgress,
  });

/** The release's binary, as a file. */
export const downloadRelease = (r: Release) =>
  api.blob('GET', 'binary_deployment/download_binaries/', {
    query: { environment: r.running_environment, branch: r.branch, version: r.version_number, target: r.target },
  });

/** Every release of `version` (each target) goes to `environment`. */
export const moveRelease = (version: string, environment: Environment) =>
  api.patch<Release[]>('binary_deployment/move_binaries_to_prod/', { version, environment } satisfies MoveRelease);

export const setRolloutState = (id: number, currentState: 'stopped' | 'rolling_out') =>
  api.patch<Release>(`binary_deployment/${id}/`, { currentState } satisfies ReleasePatch);

export const deleteRelease = (r: Release) =>
  api.delete<Msg>('binary_deployment/delete_branch/', { query: { environment: r.running_environment, branch: r.branch, id: r.id } });

export const instancesPageQuery = (page: number, search: string) =>
  queryOptions({
    queryKey: [...instancesKey, 'page', { page, search }],
    queryFn: () => api.get<Page<Instance>>('binary_deployment/instances/', { query: { page, search: search || undefined } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
