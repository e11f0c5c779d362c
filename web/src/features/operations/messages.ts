/** The task messages of spec section 5 the portal shows itself (the server answers the same). */

/** '{task} is being trained, You cannot update the task when it is being trained.' */
export const beingTrainedMessage = (task: string) =>
  `${task} is being trained, You cannot update the task when it is being trained.`;

/** What changing the model asks of the user (spec section 4). */
export const RESTART_FOR_MODEL = 'Restart the task for the change to take effect.';
