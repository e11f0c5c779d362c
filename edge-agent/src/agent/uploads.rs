//! Uploads: a recording and the cycle clips go up to the signed URLs the cloud gave,
//! each in one streamed `PUT`; a clip the cloud refuses goes, one that failed waits its
//! back-off in the outbox's clip queue.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use tokio::sync::watch;

use crate::capture;
use crate::clock::now_ms;
use crate::outbox::Outbox;

/// Waits for a recording to end, uploads it to `url` and removes it: what to say.
pub(super) async fn finish_recording(
    done: capture::RecordingDone,
    http: &reqwest::Client,
    url: &str,
) -> anyhow::Result<String> {
    let rec = tokio::task::spawn_blocking(move || {
        done.recv()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the recording stopped")))
    })
    .await??;
    let r = put_file(http, &rec.path, url, "recording").await;
    let _ = tokio::fs::remove_file(&rec.path).await;
    let bytes = r?;
    Ok(format!(
        "recorded {:.1} s ({} frames, {:.1} MB) and uploaded it",
        rec.duration_ms as f64 / 1000.0,
        rec.frames,
        bytes as f64 / 1e6
    ))
}

/// Why a file did not reach the cloud.
#[derive(Debug)]
enum PutError {
    /// The cloud refused it for good (a 4xx answer but 408 and 429): sending it again
    /// changes nothing.
    Refused(String),
    /// The link or the cloud failed: it may go later.
    Failed(anyhow::Error),
}

impl From<PutError> for anyhow::Error {
    fn from(e: PutError) -> anyhow::Error {
        match e {
            PutError::Refused(why) => anyhow::anyhow!(why),
            PutError::Failed(e) => e,
        }
    }
}

/// Sends file `path` (a `what`: recording, clip) whole in one `PUT` to `url`, streamed;
/// answers its size.
async fn put_file(
    http: &reqwest::Client,
    path: &Path,
    url: &str,
    what: &str,
) -> Result<u64, PutError> {
    let failed = |e: anyhow::Error| PutError::Failed(e);
    let file = tokio::fs::File::open(path)
        .await
        .map_err(|e| PutError::Refused(format!("the {what} is gone: {e}")))?;
    let size = file.metadata().await.map_err(|e| failed(e.into()))?.len();
    let stream = futures_util::stream::try_unfold(file, |mut f| async move {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 256 * 1024];
        let n = f.read(&mut buf).await?;
        buf.truncate(n);
        Ok::<_, std::io::Error>((n > 0).then_some((buf, f)))
    });
    let body = reqwest::Body::wrap_stream(stream);
    put(http, body, size, "application/octet-stream", url, what).await
}

/// A screenshot taken (`done`), sent in one `PUT` to `url`: the acknowledgement's
/// message.
pub(super) async fn finish_screenshot(
    done: capture::SnapshotDone,
    http: &reqwest::Client,
    url: &str,
) -> anyhow::Result<String> {
    let jpeg =
        tokio::task::spawn_blocking(move || capture::wait_snapshot(done, Duration::from_secs(10)))
            .await??;
    let size = jpeg.len() as u64;
    put(http, jpeg.into(), size, "image/jpeg", url, "screenshot").await?;
    Ok(format!(
        "screenshot taken ({:.0} kB) and uploaded",
        size as f64 / 1e3
    ))
}

/// Sends `body` (`size` bytes of a `what`) whole in one `PUT` to `url`.
async fn put(
    http: &reqwest::Client,
    body: reqwest::Body,
    size: u64,
    content_type: &str,
    url: &str,
    what: &str,
) -> Result<u64, PutError> {
    let failed = |e: anyhow::Error| PutError::Failed(e);
    let res = http
        .put(url)
        .header(reqwest::header::CONTENT_LENGTH, size)
        .header(reqwest::header::CONTENT_TYPE, content_type)
        .body(body)
        .timeout(Duration::from_secs(3600))
        .send()
        .await
        .with_context(|| format!("uploading the {what}"))
        .map_err(failed)?;
    let status = res.status();
    if !status.is_success() {
        let body = res.text().await.unwrap_or_default();
        let why = format!(
            "the cloud refused the {what} ({status}): {}",
            body.chars().take(300).collect::<String>()
        );
        return Err(
            if status.is_client_error()
                && status != reqwest::StatusCode::REQUEST_TIMEOUT
                && status != reqwest::StatusCode::TOO_MANY_REQUESTS
            {
                PutError::Refused(why)
            } else {
                failed(anyhow::anyhow!(why))
            },
        );
    }
    Ok(size)
}

/// Uploads the clips whose cycles the cloud stored, oldest first, until `stop`: each
/// to the URL its cycles' acknowledgement carried. A clip the cloud refuses goes; one
/// that failed to reach it is tried again after a back-off.
pub(super) async fn upload_clips(
    outbox: Arc<Mutex<Outbox>>,
    http: reqwest::Client,
    mut stop: watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut swept = 0;
    loop {
        tokio::select! {
            _ = stop.changed() => if *stop.borrow() { return },
            _ = tick.tick() => {}
        }
        let now = now_ms();
        if now - swept > 60_000 {
            swept = now;
            if let Err(e) = outbox.lock().expect("outbox lock").clips_stale(now) {
                tracing::warn!(error = %e, "forgetting stale clip URLs");
            }
        }
        let due = match outbox.lock().expect("outbox lock").clips_due(8, now) {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(error = %e, "reading the clip queue");
                continue;
            }
        };
        for c in due {
            if *stop.borrow() {
                return;
            }
            let url = format!("{}{}?start_ms={}", c.url, c.cycle, c.start_ms);
            // A stop does not wait for an upload: the clip goes next time.
            let r = tokio::select! {
                r = put_file(&http, Path::new(&c.path), &url, "clip") => r,
                _ = stop.changed() => return,
            };
            let r = {
                let mut o = outbox.lock().expect("outbox lock");
                match r {
                    Ok(bytes) => {
                        tracing::debug!(cycle = c.cycle, bytes, "clip uploaded");
                        o.clip_gone(&c.cycle)
                    }
                    Err(PutError::Refused(why)) => {
                        tracing::warn!(cycle = c.cycle, why, "a clip was refused; dropped");
                        o.clip_gone(&c.cycle)
                    }
                    Err(PutError::Failed(e)) => {
                        tracing::info!(cycle = c.cycle, attempts = c.attempts + 1, error = %format!("{e:#}"), "a clip upload failed; trying again later");
                        o.clip_retry(&c.cycle, now_ms()).map(|()| None)
                    }
                }
            };
            match r {
                Ok(Some(path)) => {
                    let _ = tokio::fs::remove_file(path).await;
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "updating the clip queue"),
            }
        }
    }
}
