//! `POST organization/task/merge_video_sequences/`: ready videos of a task joined in
//! the order given into a new video of the task (docs/decisions.md "Merging video
//! sequences"). Making a video: `ManageVideos` and the "Record Training Set"
//! subscription.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::annotation::{MAX_MERGED_VIDEOS, MergeVideoSequences, check_ids};
use gemba_shared::api::v1::video::Video;

use super::images::fetch_object;
use super::task_in;
use crate::db::videos::{self, NewVideo};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json};
use crate::http::videos::{one_with_tags, org_to_change};
use crate::media::merge::{self, Shape};
use crate::media::upload::{finish, remove_files};
use crate::media::urls::Viewer;
use crate::objects;
use crate::state::AppState;

/// Joins the videos into a new training video of the task (201, ready).
#[utoipa::path(post, path = "/organization/task/merge_video_sequences/", tag = "annotations",
    request_body = MergeVideoSequences,
    responses((status = 201, body = Video), (status = 400), (status = 403), (status = 404)))]
pub async fn merge_video_sequences(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<MergeVideoSequences>,
) -> ApiResult<(StatusCode, axum::Json<Video>)> {
    let org = org_to_change(&state, &me).await?;
    let ids = check_ids(&req.videos).map_err(|m| ApiError::field("videos", m))?;
    if ids.len() < 2 || ids.len() > MAX_MERGED_VIDEOS {
        return Err(ApiError::field(
            "videos",
            format!("Give 2 to {MAX_MERGED_VIDEOS} different videos to join."),
        ));
    }
    let task = task_in(&state, &me, org, req.task).await?;
    let mut rows = Vec::with_capacity(ids.len());
    for id in &ids {
        let v = videos::get(&state.db, org, *id)
            .await?
            .ok_or(ApiError::NotFound)?;
        if v.task_id != task.id || v.status != videos::READY {
            return Err(ApiError::field(
                "videos",
                format!("Video {id} is not a ready video of this operation."),
            ));
        }
        rows.push(v);
    }
    let first = &rows[0];
    let shape = Shape {
        width: first.width.unwrap_or(640),
        height: first.height.unwrap_or(480),
        fps: first.fps.filter(|f| *f > 0.0).unwrap_or(15.0),
    };
    let dir = state
        .settings
        .data
        .join("uploads")
        .join(format!("merge-{}", uuid::Uuid::new_v4().simple()));
    let made = join(&state, &rows, &dir, shape).await;
    let out = match made {
        Ok(out) => out,
        Err(e) => {
            let _ = tokio::fs::remove_dir_all(&dir).await;
            return Err(e.into());
        }
    };
    let size = tokio::fs::metadata(&out).await.map(|m| m.len() as i64);
    let name = format!("Merged {} videos.mp4", rows.len());
    let created = match size {
        Ok(size) => videos::create(
            &state.db,
            NewVideo {
                org,
                task: task.id,
                file_name: &name,
                extension: "mp4",
                is_uploaded_video: first.is_uploaded_video,
                size_bytes: size,
                created_by: me.user.id,
                recording: None,
            },
        )
        .await
        .map_err(ApiError::from),
        Err(e) => Err(ApiError::Internal(e.into())),
    };
    let row = match created {
        Ok(row) => row,
        Err(e) => {
            let _ = tokio::fs::remove_dir_all(&dir).await;
            return Err(e);
        }
    };
    let r = finish(&state, &row, &out).await;
    let _ = tokio::fs::remove_dir_all(&dir).await;
    if let Err(e) = r {
        // Nothing half made stays: the video and its files go.
        if let Ok(Ok(gone)) = videos::delete(&state.db, org, &[row.id]).await {
            for g in gone {
                remove_files(&state, org, &g).await;
            }
        }
        return Err(match e {
            crate::media::ReadError::NotVideo(why) => ApiError::field(
                "videos",
                format!("The joined video could not be read: {why}"),
            ),
            crate::media::ReadError::Failed(e) => ApiError::Internal(e),
        });
    }
    let row = videos::get(&state.db, org, row.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok((
        StatusCode::CREATED,
        axum::Json(one_with_tags(&state, Viewer::Session(&me.session), row).await?),
    ))
}

/// Copies the videos `rows` into `dir` and joins them there: the joined file.
async fn join(
    state: &AppState,
    rows: &[videos::VideoRow],
    dir: &std::path::Path,
    shape: Shape,
) -> anyhow::Result<std::path::PathBuf> {
    tokio::fs::create_dir_all(dir).await?;
    let mut inputs = Vec::with_capacity(rows.len());
    for (i, v) in rows.iter().enumerate() {
        let ext = v
            .object_key
            .rsplit_once('.')
            .map(|(_, e)| e)
            .unwrap_or("mp4");
        let p = dir.join(format!("{i}.{ext}"));
        fetch_object(state, &objects::key(v.organization_id, &v.object_key), &p).await?;
        inputs.push(p);
    }
    let out = dir.join("merged.mp4");
    let o = out.clone();
    tokio::task::spawn_blocking(move || merge::concat(&inputs, &o, shape)).await??;
    Ok(out)
}
