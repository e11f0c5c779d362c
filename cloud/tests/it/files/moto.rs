//! A real S3-compatible server for the tests: moto in server mode (`moto[server]`,
//! pinned in `scripts/lib.sh`'s `PY_TOOLS`), on a free local port, stopped when
//! dropped. It keeps buckets in memory and takes any credentials.

use std::time::Duration;

use gemba_cloud::config::{Secret, Settings};
use gemba_cloud::objects::S3Settings;

use crate::common::{free_port, test_python};

pub(crate) struct Moto {
    pub(crate) endpoint: String,
    _child: tokio::process::Child,
}

impl Moto {
    /// Starts the server and makes bucket `bucket` in it.
    pub(crate) async fn start(bucket: &str) -> Moto {
        let port = free_port();
        let child = tokio::process::Command::new(test_python(
            "the S3 tests need a Python with moto[server]",
        ))
        .args(["-m", "moto.server", "-H", "127.0.0.1", "-p"])
        .arg(port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("starting moto");
        let endpoint = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        let mut up = false;
        for _ in 0..300 {
            if client.get(&endpoint).send().await.is_ok() {
                up = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(up, "moto did not start");
        let r = client
            .put(format!("{endpoint}/{bucket}"))
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "creating the bucket: {}",
            r.status()
        );
        Moto {
            endpoint,
            _child: child,
        }
    }

    /// Settings that keep the cloud's objects in bucket `bucket` of this server.
    pub(crate) fn configure(&self, s: &mut Settings, bucket: &str) {
        s.s3 = Some(S3Settings {
            bucket: bucket.into(),
            endpoint: Some(self.endpoint.clone()),
            access_key_id: Some("testing".into()),
            secret_access_key: Some(Secret("testing".into())),
            allow_http: true,
            ..S3Settings::default()
        });
    }

    /// The keys of bucket `bucket` under `prefix`, read from the server itself
    /// (ListObjectsV2), not through the cloud.
    pub(crate) async fn keys(&self, bucket: &str, prefix: &str) -> Vec<String> {
        let xml = reqwest::Client::new()
            .get(format!(
                "{}/{bucket}?list-type=2&prefix={prefix}",
                self.endpoint
            ))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        xml.split("<Key>")
            .skip(1)
            .filter_map(|s| s.split_once("</Key>").map(|(k, _)| k.to_string()))
            .collect()
    }
}
