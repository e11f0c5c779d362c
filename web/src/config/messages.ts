/** Messages of spec section 8 the data screens show, exactly as the spec writes them. */

export const DATA_CREATED = 'Data created successfully!';
export const DATA_UPDATED = 'Data updated successfully!';
export const DATA_DELETED = 'Data deleted successfully!';
export const USER_APPROVED = 'User approved successfully!';
export const CHANGES_SAVED = 'Your changes have been saved!';

export const ORG_DELETE_FAILED = 'Error occured while deleting the organization!';
export const APPROVE_FAILED = 'Error in Approving User';
export const ASSIGN_ORG_FAILED = 'Error occured while setting the organisation';

/** A verification (or reset) link that is expired, used or unknown. */
export const TOKEN_INVALID = 'Token expired/Invalid!';

// Tasks (operations).
export const TASK_HISTORY_FAILED = 'Failed to fetch task history';
export const TASK_REVERT_FAILED = 'Failed to revert task';
export const CHANGES_SAVE_FAILED = 'Error occurred in saving your changes!';
export const MODEL_UPDATE_FAILED = 'error occurred in updating the model on Task!';
