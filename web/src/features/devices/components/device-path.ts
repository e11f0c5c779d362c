import { generatePath } from 'react-router';

import { paths } from '@/config/paths';

/** The page of device `id` (`/user/devices/{id}`). */
export const devicePath = (id: number) => generatePath(paths.user.device, { id: String(id) });
