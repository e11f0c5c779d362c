//! A video's bytes on their way in: staged in `{data}/uploads/{id}.part` (by the upload's
//! parts, a device's recording or the demo's footage), one writer per video at a time
//! ([`lock_part`]), then finished: read with GStreamer, its thumbnail made, both copied
//! into the object store and the video made ready. A video's files go with it
//! ([`remove_files`]).

use std::path::PathBuf;

use anyhow::Context;
use object_store::{ObjectStoreExt, WriteMultipart};
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

use crate::db::videos::{self, VideoRow};
use crate::media::{self, NotVideo};
use crate::objects;
use crate::state::AppState;

/// Thumbnail width in pixels.
const THUMBNAIL_WIDTH: u32 = 320;

/// Where video `id`'s bytes are staged until it is finished.
pub fn staging(state: &AppState, id: i64) -> PathBuf {
    state
        .settings
        .data
        .join("uploads")
        .join(format!("{id}.part"))
}

fn thumbnail_key(id: i64) -> String {
    format!("videos/{id}/thumbnail.jpg")
}

/// Holds a video's part lock until dropped.
pub struct PartLock<'a>(&'a AppState, i64);

impl Drop for PartLock<'_> {
    fn drop(&mut self) {
        self.0.uploads.lock().expect("uploads lock").remove(&self.1);
    }
}

/// Another writer holds the video's part lock.
#[derive(Debug, thiserror::Error)]
#[error("Another part of this video is being written; send the next when it is done.")]
pub struct Busy;

/// The part lock of video `id`: one part at a time per video, from reading where it is
/// to recording the part.
pub fn lock_part(state: &AppState, id: i64) -> Result<PartLock<'_>, Busy> {
    if !state.uploads.lock().expect("uploads lock").insert(id) {
        return Err(Busy);
    }
    Ok(PartLock(state, id))
}

/// Writes `bytes` at `offset` of the staging file (cutting off anything after, left by
/// a part that was written but not recorded), durably.
pub async fn write_part(path: &std::path::Path, offset: i64, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        tokio::fs::create_dir_all(dir).await?;
    }
    let mut f = tokio::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .await?;
    f.set_len(offset as u64).await?;
    f.seek(std::io::SeekFrom::Start(offset as u64)).await?;
    f.write_all(bytes).await?;
    f.sync_data().await?;
    Ok(())
}

/// The whole file is there: read it (rewriting a Matroska file in place), make its
/// thumbnail, copy both into the object store. The file stays for the caller to remove.
pub async fn finish(
    state: &AppState,
    row: &VideoRow,
    path: &std::path::Path,
) -> Result<(), media::ReadError> {
    let p = path.to_path_buf();
    let (info, thumb) = tokio::task::spawn_blocking(move || -> Result<_, media::ReadError> {
        // A browser's recording (WebM without duration or index) is rewritten first.
        media::remux_matroska(&p).map_err(|e| {
            tracing::info!(error = %e, "an uploaded Matroska file could not be rewritten");
            NotVideo::Unreadable
        })?;
        let info = media::probe(&p)?;
        // A file whose first frame cannot be decoded is no use for training.
        let thumb = media::thumbnail(&p, THUMBNAIL_WIDTH).map_err(|e| {
            tracing::info!(error = %e, "an uploaded video's first frame could not be decoded");
            NotVideo::Unreadable
        })?;
        Ok((info, thumb))
    })
    .await
    .context("reading the video")??;
    let org = row.organization_id;
    copy_to_store(state, path, &objects::key(org, &row.object_key)).await?;
    let tkey = thumbnail_key(row.id);
    state
        .objects
        .put(&objects::key(org, &tkey), thumb.into())
        .await
        .context("storing the thumbnail")?;
    videos::make_ready(
        &state.db,
        row.id,
        videos::Ready {
            thumbnail_key: &tkey,
            duration_ms: info.duration_ms,
            fps: info.fps,
            width: info.width,
            height: info.height,
        },
    )
    .await
    .context("making the video ready")?;
    Ok(())
}

/// Streams a file into the object store in parts (a video may be gigabytes).
pub async fn copy_to_store(
    state: &AppState,
    path: &std::path::Path,
    key: &object_store::path::Path,
) -> anyhow::Result<()> {
    let upload = state.objects.put_multipart(key).await?;
    let mut w = WriteMultipart::new(upload);
    let mut f = tokio::fs::File::open(path).await?;
    let mut buf = vec![0u8; 1024 * 1024];
    loop {
        let n = f.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        w.wait_for_capacity(4).await?;
        w.write(&buf[..n]);
    }
    w.finish().await?;
    Ok(())
}

/// Deletes the files of deleted video `r` of `org`: its staging file, its object and
/// its thumbnail (a failure is logged; the video is gone either way).
pub async fn remove_files(state: &AppState, org: i64, r: &VideoRow) {
    let _ = tokio::fs::remove_file(staging(state, r.id)).await;
    for k in std::iter::once(&r.object_key).chain(r.thumbnail_key.as_ref()) {
        if let Err(e) = state.objects.delete(&objects::key(org, k)).await
            && !matches!(e, object_store::Error::NotFound { .. })
        {
            tracing::warn!(video = r.id, error = %e, "deleting a video's file");
        }
    }
}
