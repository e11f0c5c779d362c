//! `sample_images_for_detector` (a message on the cloud's job queue, `crate::queue`;
//! docs/decisions.md "send_message_to_sqs"): evenly spaced frames of each ready video of
//! a task become its annotation images, each taken by the same code as
//! `POST organization/task/annotation_image/` as the user who sent the message (a frame
//! taken before answers its image; the task's limit of images stops the job, failed,
//! with the images taken so far kept).

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::annotation::AnnotationImageCreate;
use gemba_shared::api::v1::queue::sample_times;

use super::images::create_image;
use super::{org_for, task_in};
use crate::db::videos::{self, Filter};
use crate::http::error::ApiResult;
use crate::http::extract::{AuthUser, Json};
use crate::state::AppState;

/// Most videos of a task one message samples (the newest).
const MAX_VIDEOS: i64 = 1000;

/// Whether `me` may take images of task `task`: `LabelVideos` in the organisation the
/// call acts in, the task its own and not deleted (404). Answers the organisation.
pub(crate) async fn check(state: &AppState, me: &AuthUser, task: i64) -> ApiResult<i64> {
    let org = org_for(me, Permission::LabelVideos)?;
    task_in(state, me, org, task).await?;
    Ok(org)
}

/// Takes `per_video` frames of each ready video of task `task` as its images; answers
/// their ids, video by video (oldest first) and by time. A failure ends it; the images
/// taken before stay (a message sent again answers them and takes only what is
/// missing).
pub(crate) async fn sample(
    state: &AppState,
    me: &AuthUser,
    task: i64,
    per_video: i64,
) -> ApiResult<Vec<i64>> {
    let org = check(state, me, task).await?;
    let f = Filter {
        ready_only: true,
        ..Filter::default()
    };
    let (mut vids, _) = videos::page(&state.db, org, task, &f, 0, MAX_VIDEOS).await?;
    vids.sort_by_key(|v| v.id);
    let mut ids = vec![];
    for v in vids {
        for frame_ms in sample_times(v.duration_ms.unwrap_or(0), per_video) {
            let (_, axum::Json(image)) = create_image(
                State(state.clone()),
                me.clone(),
                Json(AnnotationImageCreate {
                    video: v.id,
                    frame_ms,
                }),
            )
            .await?;
            ids.push(image.id);
        }
    }
    Ok(ids)
}
