//! Where a camera's frames come from, as a user names it (`test`, `v4l2:/dev/videoN`,
//! `rtsp://…`, a file) and as a technician reads it (a URL's password hidden).

use anyhow::bail;

/// Where a camera's frames come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A video file.
    File(std::path::PathBuf),
    /// A network stream (`rtsp://`, `http://`, `https://`).
    Uri(String),
    /// A V4L2 device such as `/dev/video0`.
    V4l2(String),
    /// GStreamer's moving test pattern.
    Test,
    /// A test pattern with the time each frame was made drawn into it
    /// ([`super::stamp`]), to measure how late live view shows it.
    Stamp,
}

impl std::fmt::Display for Source {
    /// How a technician knows the source: `file PATH`, the URL without its password,
    /// `device /dev/videoN`, `test pattern`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::File(p) => write!(f, "file {}", p.display()),
            Source::Uri(u) => f.write_str(&without_password(u)),
            Source::V4l2(d) => write!(f, "device {d}"),
            Source::Test => f.write_str("test pattern"),
            Source::Stamp => f.write_str("time-stamped test pattern"),
        }
    }
}

/// `u` with the password of its user part (`scheme://user:password@host/…`) hidden.
fn without_password(u: &str) -> String {
    let Some((scheme, rest)) = u.split_once("://") else {
        return u.into();
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    match rest[..host_end].rsplit_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{name}:***@{host}{}", &rest[host_end..])
        }
        _ => u.into(),
    }
}

impl std::str::FromStr for Source {
    type Err = anyhow::Error;
    /// `test`, `stamp`, `v4l2:/dev/video0`, `rtsp://…`, `http(s)://…`, `file:PATH` or a path.
    fn from_str(s: &str) -> anyhow::Result<Source> {
        let s = s.trim();
        if s.is_empty() {
            bail!("a camera source is empty");
        }
        Ok(if s == "test" {
            Source::Test
        } else if s == "stamp" {
            Source::Stamp
        } else if let Some(d) = s.strip_prefix("v4l2:") {
            Source::V4l2(d.into())
        } else if ["rtsp://", "rtsps://", "http://", "https://"]
            .iter()
            .any(|p| s.starts_with(p))
        {
            Source::Uri(s.into())
        } else {
            Source::File(s.strip_prefix("file:").unwrap_or(s).into())
        })
    }
}

/// Drops the frames a decoder makes without their reference pictures (a network stream
/// joined between two key frames decodes to grey smears until the next): libav's
/// decoders in `pipeline` are told not to output them, so no branch (a screenshot, the
/// model, live view) gets one.
pub(super) fn whole_frames_only(pipeline: &gstreamer::Pipeline) {
    use gstreamer::prelude::*;
    pipeline.connect_deep_element_added(|_, _, element| {
        if element.find_property("output-corrupt").is_some() {
            element.set_property("output-corrupt", false);
        }
    });
}
