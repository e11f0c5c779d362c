/**
 * The pump example of the operation format (the module docs of `shared/src/operation`),
 * as text and as the operation it reads as. Its steps after the last process line go to
 * a default process, "Process 2". Shared by the tests of the format, the editor and the
 * import; treat it as read-only.
 */
import type { Operation } from '@/api/generated';

export const PUMP_TEXT = `Assemble pump
Fit housing:
Place housing;
Tighten screws;
Check seal:
Inspect seal;
Pre-assembly~
Pack:
Put in box;
`;

export const PUMP_OPERATION: Operation = {
  name: 'Assemble pump',
  processes: [
    {
      name: 'Pre-assembly',
      steps: [
        { name: 'Fit housing', substeps: ['Place housing', 'Tighten screws'] },
        { name: 'Check seal', substeps: ['Inspect seal'] },
      ],
    },
    { name: 'Process 2', steps: [{ name: 'Pack', substeps: ['Put in box'] }] },
  ],
};
