//! Messages on the cloud's own job queue (`POST generic/send_message_to_sqs/`, spec
//! sections 7 and 9): the call keeps a `queue_messages` row and queues a
//! [`crate::jobs::MessageJob`]; a worker runs it here, moving the row `started`, then
//! `finished` (or `failed`, with why). The queues:
//! - `trim_video` ([`trim`]): cuts a ready task video to a span and keeps the cut as a
//!   new video of the same task;
//! - `update_task`: the task's changes, made by the code of `PATCH
//!   organization/task/{id}/` (`http::tasks::queued`);
//! - `cloning_task`: the task copied by the code of `generic/clone_task/` (same);
//! - `sample_images_for_detector`: evenly spaced frames of each ready video of the
//!   task taken as its annotation images (`http::annotations::sample`).
//!
//! The task queues act as the message's sender ([`sender`]), so the sender's rights are
//! checked again when the job runs, by the same code as the calls'.

pub mod sender;
pub mod trim;

use anyhow::Context;
use futures_util::StreamExt;
use gemba_shared::api::v1::queue::{DEFAULT_FRAMES_PER_VIDEO, FINISHED};
use object_store::ObjectStoreExt;
use tokio::io::AsyncWriteExt;

use crate::db::queue::{self as db, Made, MessageRow};
use crate::db::videos::{self, NewVideo};
use crate::http::annotations::sample;
use crate::http::error::ApiError;
use crate::http::tasks::queued as tasks;
use crate::media::upload;
use crate::objects;
use crate::state::AppState;

/// Runs message `id`. Its own failures are recorded on it (`failed`); only a failure to
/// record is answered, so that apalis tries the job again.
pub async fn run(state: &AppState, id: i64) -> anyhow::Result<()> {
    let Some(m) = db::by_id(&state.db, id).await? else {
        return Ok(()); // its organisation is gone
    };
    if m.status == FINISHED {
        return Ok(());
    }
    db::start(&state.db, id).await?;
    let done = match m.queue.as_str() {
        "trim_video" => trim_video(state, &m).await.map(|video| Made {
            video,
            ..Made::default()
        }),
        _ => task_job(state, &m).await,
    };
    match done {
        Ok(made) => db::finish(&state.db, id, &made).await?,
        Err(e) => {
            tracing::info!(
                message = id,
                error = format!("{e:#}"),
                "a queued message failed"
            );
            db::fail(&state.db, id, &format!("{e:#}")).await?
        }
    }
    Ok(())
}

/// A task queue's job, as the message's sender.
async fn task_job(state: &AppState, m: &MessageRow) -> anyhow::Result<Made> {
    let task = m.task_id.context("the message names no task")?;
    let me = sender::of(state, m).await?;
    let made = match m.queue.as_str() {
        "update_task" => {
            let changes = m.changes().context("the message carries no changes")?;
            Made {
                task: Some(
                    tasks::update(state, &me, task, changes)
                        .await
                        .map_err(why)?,
                ),
                ..Made::default()
            }
        }
        "cloning_task" => {
            let name = m.task_name.as_deref().unwrap_or_default();
            let to = m.target_organization_id;
            Made {
                task: Some(
                    tasks::clone(state, &me, task, name, to)
                        .await
                        .map_err(why)?,
                ),
                ..Made::default()
            }
        }
        "sample_images_for_detector" => {
            let n = m.frames_per_video.unwrap_or(DEFAULT_FRAMES_PER_VIDEO);
            Made {
                images: sample::sample(state, &me, task, n).await.map_err(why)?,
                ..Made::default()
            }
        }
        q => anyhow::bail!("the queue {q} is not one of the cloud's"),
    };
    Ok(made)
}

/// A call's refusal as a job's failure: its message as the call would say it.
fn why(e: ApiError) -> anyhow::Error {
    match e {
        ApiError::Field { field, message } if field == "non_field_errors" => {
            anyhow::anyhow!(message)
        }
        ApiError::Forbidden => {
            anyhow::anyhow!("the user who sent the message may not do this (any more)")
        }
        ApiError::NotFound => anyhow::anyhow!("the task is gone"),
        e => anyhow::Error::from(e),
    }
}

/// Cuts the message's video to its span: the new video's id.
async fn trim_video(state: &AppState, m: &MessageRow) -> anyhow::Result<Option<i64>> {
    let (Some(vid), Some(start), Some(end)) = (m.video_id, m.start_ms, m.end_ms) else {
        anyhow::bail!("the message names no video and span");
    };
    let org = m.organization_id;
    let src = videos::get(&state.db, org, vid)
        .await?
        .context("the video is gone")?;
    let by = m
        .created_by
        .context("the user who sent the message is gone")?;
    if src.status != videos::READY {
        anyhow::bail!("the video is not ready");
    }
    let dir = state.settings.data.join("uploads");
    tokio::fs::create_dir_all(&dir).await?;
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let inp = dir.join(format!("trim-{tag}.in"));
    let out = dir.join(format!("trim-{tag}.mp4"));
    let made = async {
        fetch(state, &objects::key(org, &src.object_key), &inp).await?;
        let (i, o) = (inp.clone(), out.clone());
        tokio::task::spawn_blocking(move || trim::trim(&i, &o, start as u64, end as u64)).await??;
        let size = tokio::fs::metadata(&out).await?.len() as i64;
        let name = trimmed_name(&src.file_name, start, end);
        let row = videos::create(
            &state.db,
            NewVideo {
                org,
                task: src.task_id,
                file_name: &name,
                extension: "mp4",
                is_uploaded_video: src.is_uploaded_video,
                size_bytes: size,
                created_by: by,
                recording: None,
            },
        )
        .await?;
        if let Err(e) = upload::finish(state, &row, &out).await {
            upload::remove_files(state, org, &row).await;
            let _ = videos::delete(&state.db, org, &[row.id]).await;
            return Err(anyhow::anyhow!("the trimmed video cannot be read: {e}"));
        }
        anyhow::Ok(row.id)
    }
    .await;
    let _ = tokio::fs::remove_file(&inp).await;
    let _ = tokio::fs::remove_file(&out).await;
    Ok(Some(made?))
}

/// The trimmed video's name: the source's stem and the span in seconds.
pub fn trimmed_name(source: &str, start_ms: i64, end_ms: i64) -> String {
    let stem = source.rsplit_once('.').map_or(source, |(s, _)| s);
    let secs = |ms: i64| format!("{}.{:03}", ms / 1000, ms % 1000);
    format!("{stem} ({}-{} s).mp4", secs(start_ms), secs(end_ms))
}

/// Copies object `key` into the file `path`, streaming.
async fn fetch(
    state: &AppState,
    key: &object_store::path::Path,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let mut stream = state.objects.get(key).await?.into_stream();
    let mut file = tokio::fs::File::create(path).await?;
    while let Some(chunk) = stream.next().await {
        file.write_all(&chunk?).await?;
    }
    file.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::trimmed_name;

    #[test]
    fn trimmed_names_say_the_span() {
        assert_eq!(
            trimmed_name("line 1.webm", 1500, 4000),
            "line 1 (1.500-4.000 s).mp4"
        );
        assert_eq!(trimmed_name("noext", 0, 250), "noext (0.000-0.250 s).mp4");
    }
}
