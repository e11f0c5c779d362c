//! The object store for media and model files: a local folder (`{data}/objects`) by
//! default, through the `object_store` crate so that an S3-compatible bucket can take
//! its place by configuration (with the media issue). Keys are `org/{id}/…`, so every
//! object belongs to one organisation, but for the platform's model files
//! (`platform/…`, the super admin's catalogue).

use std::sync::Arc;

use anyhow::Context;
use object_store::ObjectStore;
use object_store::local::LocalFileSystem;

use crate::config::Settings;

pub type Objects = Arc<dyn ObjectStore>;

/// Opens the local object folder, creating it when missing.
pub fn open(settings: &Settings) -> anyhow::Result<Objects> {
    let dir = settings.data.join("objects");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let store = LocalFileSystem::new_with_prefix(&dir)
        .with_context(|| format!("opening the object folder {}", dir.display()))?
        .with_automatic_cleanup(true);
    Ok(Arc::new(store))
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
        let k = key(7, "videos/a.mp4");
        store
            .put(&k, PutPayload::from_static(b"frames"))
            .await
            .unwrap();
        let got = store.get(&k).await.unwrap().bytes().await.unwrap();
        assert_eq!(&got[..], b"frames");
        assert!(dir.path().join("objects/org/7/videos/a.mp4").exists());
        store.delete(&k).await.unwrap();
        assert!(store.get(&k).await.is_err());
    }
}
