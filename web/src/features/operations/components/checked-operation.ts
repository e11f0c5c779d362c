import type { Operation } from '@/api/generated';
import { validate } from '@/lib/operation';
import { notify } from '@/lib/toast';

import { type EditorState, operationOf } from '../editor';
import { checkTaskName } from '../rules';

/**
 * An edited operation checked before it is sent (the new-operation form and the edit of
 * a task alike): the task name first, its message (or null) given to `setNameError` for
 * the field; then the save rules of section 5, the first failing one as a 3 s toast. The
 * operation to send when both pass, else null.
 */
export function checkedOperation(state: EditorState, setNameError: (message: string | null) => void): Operation | null {
  const nameProblem = checkTaskName(state.name);
  setNameError(nameProblem);
  if (nameProblem) return null;
  const op = operationOf(state);
  const problem = validate(op);
  if (problem) {
    notify.errorShort(problem);
    return null;
  }
  return op;
}
