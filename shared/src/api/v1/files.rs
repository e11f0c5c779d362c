//! Files (spec section 7 "Generic, files and others"): an organisation's files in named
//! buckets of the cloud's object store, by the `generic/` calls (upload, read, delete,
//! a new upload URL, a presigned post and its verification, a folder's zip and its
//! URLs).
//!
//! A `bucket_name` is a folder of the caller's organisation, never a bucket of the
//! object store: the cloud keeps bucket `b`'s object `p` at
//! `org/{org}/files/{b}/{p}` (docs/decisions.md "Files: buckets are per-organisation
//! folders"), so no name reaches another organisation's objects. Names and paths are
//! checked here ([`check_bucket_name`], [`check_object_path`]): no `..`, no absolute
//! path, nothing the store would read as another place.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Longest bucket name (S3's rule).
pub const MAX_BUCKET_NAME_CHARS: usize = 63;
/// Longest object path, in bytes (S3's longest key, less our prefix's room).
pub const MAX_OBJECT_PATH_BYTES: usize = 900;
/// Most files one `verify_generate_new_url/` names.
pub const MAX_VERIFY_FILES: usize = 100;
/// Most objects of a folder a zip or a list of URLs covers.
pub const MAX_FOLDER_OBJECTS: usize = 1000;
/// Most bytes of a folder's zip (its objects together).
pub const MAX_FOLDER_ZIP_BYTES: u64 = 256 * 1024 * 1024;
/// Seconds an upload URL (new URL, presigned post) and a folder's read URLs work.
pub const FILE_URL_TTL_SECS: i64 = 3600;

/// `generic/file_read/`, `generic/file_delete/`: one file of a bucket.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileRef {
    #[cfg_attr(feature = "openapi", schema(max_length = 63))]
    pub bucket_name: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 900))]
    pub object_path: String,
}

/// A file kept: the answer of `generic/file_upload/`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StoredFile {
    pub bucket_name: String,
    pub object_path: String,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size: u64,
    /// A URL that reads it, for [`FILE_URL_TTL_SECS`] at least.
    pub url: String,
}

/// `generic/generate_new_url/` and `generic/generate_presigned_post/`: a URL to upload
/// file `file` to folder `object_path` of bucket `bucket_name` (its object path is
/// `{object_path}/{file}`; an empty `object_path` is the bucket's top).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NewUrlRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 63))]
    pub bucket_name: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 900))]
    pub object_path: String,
    /// The file's name.
    #[cfg_attr(feature = "openapi", schema(max_length = 255))]
    pub file: String,
}

/// An upload URL: send the file's bytes as the body of a `method` (`PUT`) request to
/// `url` before `expires_at`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NewUrl {
    pub url: String,
    pub method: String,
    /// The object path the file will have in its bucket.
    pub object_path: String,
    /// Unix seconds.
    pub expires_at: i64,
}

/// A presigned post: a `multipart/form-data` POST to `url` with every one of `fields`,
/// then the file as field `file` (last, as S3 requires), before `expires_at`; the file
/// may be at most `max_bytes`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PresignedPost {
    pub url: String,
    pub fields: BTreeMap<String, String>,
    pub object_path: String,
    pub expires_at: i64,
    pub max_bytes: i64,
}

/// `generic/verify_generate_new_url/`: were these files (object paths) uploaded?
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VerifyRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 63))]
    pub bucket_name: String,
    pub files: Vec<String>,
}

/// One file of a verification: uploaded (with its size), or not (yet).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VerifiedFile {
    pub object_path: String,
    pub uploaded: bool,
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub size: Option<u64>,
}

/// `generic/get_bucket_folder_zip/`, `generic/get_bucket_folder_presigned_url/`: a
/// folder of a bucket (empty: the whole bucket).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FolderRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 63))]
    pub bucket_name: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 900))]
    pub folder: String,
}

/// A file of a folder with a URL that reads it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileUrl {
    pub object_path: String,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size: u64,
    pub url: String,
}

/// A bucket's name: 3 to 63 of lower-case letters, digits, `-` and `.` (S3's rule),
/// starting and ending with a letter or digit, no `..`. The error is the message.
pub fn check_bucket_name(name: &str) -> Result<(), &'static str> {
    const MSG: &str = "A bucket name is 3 to 63 lower-case letters, digits, '-' or '.', \
                       starting and ending with a letter or digit.";
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.';
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if !(3..=63).contains(&name.len())
        || !name.chars().all(ok_char)
        || !edge(name.chars().next())
        || !edge(name.chars().last())
        || name.contains("..")
    {
        return Err(MSG);
    }
    Ok(())
}

/// An object path (or a folder, with `folder`: then it may be empty and may end with
/// `/`): `/`-separated names, none empty, `.` or `..`, no `\` and no control
/// characters, at most [`MAX_OBJECT_PATH_BYTES`]. The path as kept (a folder without
/// its trailing `/`), or the message.
pub fn check_object_path(path: &str, folder: bool) -> Result<String, &'static str> {
    // A folder's trailing `/` goes; `/` alone is a leading one.
    let p = match path.strip_suffix('/') {
        Some(rest) if folder && !rest.is_empty() => rest,
        _ => path,
    };
    if p.is_empty() {
        return if folder {
            Ok(String::new())
        } else {
            Err("An object path is required.")
        };
    }
    if p.len() > MAX_OBJECT_PATH_BYTES {
        return Err("An object path is at most 900 bytes.");
    }
    if p.chars().any(|c| c.is_control() || c == '\\') {
        return Err("An object path cannot contain '\\' or control characters.");
    }
    if p.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return Err(
            "An object path is names separated by '/': none empty, '.' or '..', and no leading '/'.",
        );
    }
    Ok(p.to_string())
}

/// The object path of file `file` in folder `folder` (both checked): `{folder}/{file}`.
pub fn join(folder: &str, file: &str) -> Result<String, &'static str> {
    if file.contains('/') {
        return Err("A file name cannot contain '/'.");
    }
    let folder = check_object_path(folder, true)?;
    let full = if folder.is_empty() {
        file.to_string()
    } else {
        format!("{folder}/{file}")
    };
    check_object_path(&full, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_names_follow_s3_rules() {
        for ok in ["abc", "sop-files", "a.b-c", "0x9", &"a".repeat(63)] {
            assert!(check_bucket_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "ab",
            "Abc",
            "a_b",
            "-ab",
            "ab-",
            "a..b",
            "a/b",
            "../x",
            &"a".repeat(64),
        ] {
            assert!(check_bucket_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn object_paths_cannot_climb_or_start_at_the_root() {
        assert_eq!(check_object_path("a/b.png", false).unwrap(), "a/b.png");
        for bad in [
            "", "/a", "a//b", "../a", "a/../b", "a/..", "./a", "a\\b", "a\nb", "a/",
        ] {
            assert!(check_object_path(bad, false).is_err(), "{bad:?}");
        }
        assert!(check_object_path(&"x".repeat(MAX_OBJECT_PATH_BYTES), false).is_ok());
        assert!(check_object_path(&"x".repeat(MAX_OBJECT_PATH_BYTES + 1), false).is_err());
    }

    #[test]
    fn folders_may_be_empty_or_end_with_a_slash() {
        assert_eq!(check_object_path("", true).unwrap(), "");
        assert_eq!(check_object_path("a/b/", true).unwrap(), "a/b");
        assert!(check_object_path("/", true).is_err());
        assert!(check_object_path("a/../", true).is_err());
    }

    #[test]
    fn a_file_joins_its_folder() {
        assert_eq!(join("", "a.txt").unwrap(), "a.txt");
        assert_eq!(join("docs/", "a.txt").unwrap(), "docs/a.txt");
        assert!(join("docs", "../a.txt").is_err());
        assert!(join("docs", "..").is_err());
        assert!(join("docs", "").is_err());
        assert!(join("../docs", "a").is_err());
    }
}
