//! The object store for media, model, clip, release and organisations' files: a local
//! folder (`{data}/objects`) by default, or an S3 bucket (AWS or any S3-compatible
//! server) when `[s3]` is configured (docs/decisions.md "Object storage on S3"). Both
//! through the `object_store` crate, so callers see one [`ObjectStore`] whichever
//! backend holds the bytes.
//!
//! Keys are `org/{id}/…`, so every object belongs to one organisation, but for the
//! platform's model files and releases (`platform/…`, the super admin's catalogue).
//!
//! URLs handed out to read or upload an object: on S3, S3's own presigned URLs and
//! presigned posts ([`Objects::read_url`], [`Objects::upload_url`],
//! [`Objects::presigned_post`]); on the local folder these answer `None` and the
//! caller makes the cloud's own signed URLs (`/api/media/{token}` to read,
//! `/api/files/{token}` to upload).

mod post_policy;

use std::collections::BTreeMap;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use object_store::ObjectStore;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::local::LocalFileSystem;
use object_store::signer::Signer;
use serde::{Deserialize, Serialize};

use crate::config::{Secret, Settings};

/// The S3 bucket objects live in instead of the data folder (`[s3]`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct S3Settings {
    /// The bucket (it must exist).
    pub bucket: String,
    pub region: String,
    /// An S3-compatible server's address (`https://minio.example.com:9000`); unset:
    /// AWS's endpoint of `region`.
    pub endpoint: Option<String>,
    /// The access key; unset: the `AWS_…` environment, else the instance's role.
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<Secret>,
    /// Allow a plain-HTTP `endpoint` (a server on the same host or network).
    pub allow_http: bool,
}

impl Default for S3Settings {
    fn default() -> Self {
        S3Settings {
            bucket: String::new(),
            region: "us-east-1".into(),
            endpoint: None,
            access_key_id: None,
            secret_access_key: None,
            allow_http: false,
        }
    }
}

/// The object store, cheap to clone; derefs to the [`ObjectStore`] of its backend.
#[derive(Clone)]
pub struct Objects {
    store: Arc<dyn ObjectStore>,
    s3: Option<S3>,
}

#[derive(Clone)]
struct S3 {
    store: Arc<AmazonS3>,
    settings: S3Settings,
}

impl Deref for Objects {
    type Target = dyn ObjectStore;

    fn deref(&self) -> &Self::Target {
        &*self.store
    }
}

/// A presigned post: the URL to send the form to and the fields it must carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostForm {
    pub url: String,
    pub fields: BTreeMap<String, String>,
}

/// Opens the configured store: the S3 bucket of `[s3]`, else the local object folder
/// (created when missing).
pub fn open(settings: &Settings) -> anyhow::Result<Objects> {
    match &settings.s3 {
        Some(s3) => open_s3(s3),
        None => open_local(settings),
    }
}

fn open_local(settings: &Settings) -> anyhow::Result<Objects> {
    let dir = settings.data.join("objects");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let store = LocalFileSystem::new_with_prefix(&dir)
        .with_context(|| format!("opening the object folder {}", dir.display()))?
        .with_automatic_cleanup(true);
    Ok(Objects {
        store: Arc::new(store),
        s3: None,
    })
}

fn open_s3(s3: &S3Settings) -> anyhow::Result<Objects> {
    anyhow::ensure!(!s3.bucket.is_empty(), "[s3] needs a bucket");
    let mut b = AmazonS3Builder::from_env()
        .with_bucket_name(&s3.bucket)
        .with_region(&s3.region)
        .with_allow_http(s3.allow_http);
    if let Some(e) = &s3.endpoint {
        b = b.with_endpoint(e.trim_end_matches('/'));
    }
    if let Some(k) = &s3.access_key_id {
        b = b.with_access_key_id(k);
    }
    if let Some(s) = &s3.secret_access_key {
        b = b.with_secret_access_key(&s.0);
    }
    let store = Arc::new(
        b.build()
            .with_context(|| format!("opening the S3 bucket {}", s3.bucket))?,
    );
    Ok(Objects {
        store: store.clone(),
        s3: Some(S3 {
            store,
            settings: s3.clone(),
        }),
    })
}

impl Objects {
    /// Whether objects live in an S3 bucket (else in the local folder).
    pub fn is_s3(&self) -> bool {
        self.s3.is_some()
    }

    /// S3's presigned URL that reads object `key` for `ttl`; `None` on the local
    /// folder.
    pub async fn read_url(
        &self,
        key: &object_store::path::Path,
        ttl: Duration,
    ) -> anyhow::Result<Option<String>> {
        self.signed(axum::http::Method::GET, key, ttl).await
    }

    /// S3's presigned URL that writes object `key` with a `PUT` of its bytes, for
    /// `ttl`; `None` on the local folder.
    pub async fn upload_url(
        &self,
        key: &object_store::path::Path,
        ttl: Duration,
    ) -> anyhow::Result<Option<String>> {
        self.signed(axum::http::Method::PUT, key, ttl).await
    }

    async fn signed(
        &self,
        method: axum::http::Method,
        key: &object_store::path::Path,
        ttl: Duration,
    ) -> anyhow::Result<Option<String>> {
        let Some(s3) = &self.s3 else { return Ok(None) };
        let url = s3.store.signed_url(method, key, ttl).await?;
        Ok(Some(url.to_string()))
    }

    /// An S3 presigned post (AWS Signature Version 4 POST policy) that writes object
    /// `key` from a browser form until `expires_at` (Unix seconds), of at most
    /// `max_bytes`; `None` on the local folder.
    pub async fn presigned_post(
        &self,
        key: &object_store::path::Path,
        now: i64,
        expires_at: i64,
        max_bytes: i64,
    ) -> anyhow::Result<Option<PostForm>> {
        let Some(s3) = &self.s3 else { return Ok(None) };
        let cred = s3.store.credentials().get_credential().await?;
        let set = &s3.settings;
        let url = match &set.endpoint {
            Some(e) => format!("{}/{}", e.trim_end_matches('/'), set.bucket),
            None => format!("https://{}.s3.{}.amazonaws.com", set.bucket, set.region),
        };
        let fields = post_policy::fields(
            &post_policy::Signing {
                key_id: &cred.key_id,
                secret: &cred.secret_key,
                token: cred.token.as_deref(),
                region: &set.region,
            },
            &set.bucket,
            key.as_ref(),
            now,
            expires_at,
            max_bytes,
        )?;
        Ok(Some(PostForm { url, fields }))
    }
}

/// The key of an object of organisation `org`.
pub fn key(org: i64, name: &str) -> object_store::path::Path {
    object_store::path::Path::from(format!("org/{org}/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::{ObjectStoreExt, PutPayload};

    #[tokio::test]
    async fn objects_round_trip_in_the_data_folder() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings {
            data: dir.path().to_path_buf(),
            ..Settings::default()
        };
        let store = open(&settings).unwrap();
        assert!(!store.is_s3());
        let k = key(7, "videos/a.mp4");
        store
            .put(&k, PutPayload::from_static(b"frames"))
            .await
            .unwrap();
        let got = store.get(&k).await.unwrap().bytes().await.unwrap();
        assert_eq!(&got[..], b"frames");
        assert!(dir.path().join("objects/org/7/videos/a.mp4").exists());
        // The local folder hands out no URLs of its own: the cloud signs its own.
        let hour = Duration::from_secs(3600);
        assert_eq!(store.read_url(&k, hour).await.unwrap(), None);
        assert_eq!(store.upload_url(&k, hour).await.unwrap(), None);
        store.delete(&k).await.unwrap();
        assert!(store.get(&k).await.is_err());
    }

    #[tokio::test]
    async fn an_s3_store_signs_urls_for_its_bucket() {
        let settings = Settings {
            s3: Some(S3Settings {
                bucket: "media".into(),
                endpoint: Some("http://127.0.0.1:9".into()),
                access_key_id: Some("AKIDEXAMPLE".into()),
                secret_access_key: Some(Secret("secret".into())),
                allow_http: true,
                ..S3Settings::default()
            }),
            ..Settings::default()
        };
        let store = open(&settings).unwrap();
        assert!(store.is_s3());
        let url = store
            .read_url(&key(3, "files/a/b.txt"), Duration::from_secs(60))
            .await
            .unwrap()
            .unwrap();
        assert!(
            url.starts_with("http://127.0.0.1:9/media/org/3/files/a/b.txt?"),
            "{url}"
        );
        assert!(url.contains("X-Amz-Signature="), "{url}");
        assert!(url.contains("X-Amz-Expires=60"), "{url}");
        let form = store
            .presigned_post(&key(3, "files/a/b.txt"), 0, 60, 10)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(form.url, "http://127.0.0.1:9/media");
        assert_eq!(form.fields["key"], "org/3/files/a/b.txt");
    }

    #[test]
    fn an_s3_store_needs_a_bucket() {
        let settings = Settings {
            s3: Some(S3Settings::default()),
            ..Settings::default()
        };
        assert!(open(&settings).is_err());
    }
}
