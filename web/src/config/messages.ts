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

/** The cloud-function (service) token could not be created (section 8). */
export const TOKEN_CREATE_FAILED = 'Unable to create token';

// Tasks (operations).
export const TASK_HISTORY_FAILED = 'Failed to fetch task history';
export const TASK_REVERT_FAILED = 'Failed to revert task';
export const CHANGES_SAVE_FAILED = 'Error occurred in saving your changes!';
export const MODEL_UPDATE_FAILED = 'error occurred in updating the model on Task!';

// Remote cameras (section 8): the heads of the failure toasts.
export const REMOTE_CAMS_FETCH_FAILED = 'Error occurred while fetching Remote Cams Devices!';
export const REMOTE_CAM_CREATE_FAILED = "there's some error while assigning new device to remote cam";
export const REMOTE_CAM_UPDATE_FAILED = "there's some error while updating remote cam details";
export const REMOTE_CAM_DELETE_FAILED = "there's some error while deleting remote cam device";

/** A schedule without a proper time range (section 5; `SCHEDULE_TIME_MESSAGE` of
 * `gemba_shared::api::v1::cameras`, which the server answers on `start`). */
export const SCHEDULE_TIME_MESSAGE = 'Schedule time is not properly selected!';

// Releases (section 8).
export const BINARIES_DOWNLOAD_FAILED = 'Could Not Download The Binaries';

// Barcodes (section 8): adding (a barcode, or one to an operation), deleting, and
// removing one from its operation.
export const BARCODE_ADDED = 'Barcode added successfully';
export const BARCODE_DELETED = 'Barcode deleted successfully';
export const BARCODE_ADD_FAILED = 'Unable to add barcode';
export const BARCODE_DELETE_FAILED = 'Unable to delete barcode';
export const BARCODE_REMOVE_FAILED = 'Error in Removing Barcode';
