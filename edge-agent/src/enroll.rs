//! Enrolment: `gemba-agent enroll --cloud URL --code CODE` exchanges the one-time code the
//! portal showed for the device's credentials, and keeps them in the agent's data folder
//! (readable by the agent's user only), with the private certificate authority of the
//! cloud's HTTPS when one was given (`--cloud-ca`), so later uploads and downloads trust
//! it too. The answer carries the device's key: plain `http://` is refused to a host that
//! is not loopback unless asked for (`crate::http::check_enrol_url`).

use std::path::Path;

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::api::v1::device::{Credentials, EnrolRequest};
use serde::{Deserialize, Serialize};

use crate::sync::Link;

/// What the data folder keeps: the credentials the cloud gave and the authority its
/// HTTPS certificate comes from. A file written before HTTPS (the credentials alone)
/// reads as one without an authority.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Enrolment {
    #[serde(flatten)]
    pub credentials: Credentials,
    /// The private certificate authority of the cloud's HTTPS (PEM), from `--cloud-ca`;
    /// absent: the public authorities only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud_ca: Option<String>,
}

/// How enrolment may reach the cloud.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    /// A private certificate authority (PEM) to trust besides the public ones.
    pub cloud_ca: Option<String>,
    /// Plain `http://` to another machine is allowed (the key crosses unencrypted).
    pub insecure_http: bool,
}

/// Asks the cloud at `cloud` (`https://host:port`) for credentials.
pub async fn enroll(cloud: &str, code: &str, reach: &Reach) -> anyhow::Result<Enrolment> {
    crate::http::check_enrol_url(cloud, reach.insecure_http)?;
    let client = crate::http::client(reach.cloud_ca.as_deref())?;
    let url = format!("{}/api/device/enroll/", cloud.trim_end_matches('/'));
    let res = client
        .post(&url)
        .json(&EnrolRequest { code: code.into() })
        .timeout(std::time::Duration::from_secs(60))
        .send()
        .await
        .map_err(|e| {
            let why = if crate::http::untrusted_certificate(&e) {
                format!(
                    "the certificate of {cloud} is not trusted: if a private certificate \
                     authority issued it, give the authority's certificate (PEM) with \
                     --cloud-ca FILE"
                )
            } else {
                format!("reaching {url}")
            };
            anyhow::Error::new(e).context(why)
        })?;
    let status = res.status();
    let body: serde_json::Value = res.json().await.unwrap_or_default();
    if !status.is_success() {
        // The API's field errors: {"code": ["…"]}.
        let why = body
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(|v| v.get(0).or(Some(v)))
            .and_then(|v| v.as_str())
            .unwrap_or("no reason given")
            .to_string();
        anyhow::bail!("the cloud refused the code ({status}): {why}");
    }
    Ok(Enrolment {
        credentials: serde_json::from_value(body).context("reading the credentials")?,
        cloud_ca: reach.cloud_ca.clone(),
    })
}

/// Writes the enrolment to `path`, for the agent's user only.
pub fn save(path: &Path, c: &Enrolment) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(c)?)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}

pub fn load(path: &Path) -> anyhow::Result<Enrolment> {
    let text = std::fs::read(path).with_context(|| {
        format!(
            "reading {}: enrol the device first (gemba-agent enroll --cloud URL --code CODE)",
            path.display()
        )
    })?;
    serde_json::from_slice(&text).with_context(|| format!("reading {}", path.display()))
}

/// The MQTT link the credentials describe.
pub fn link(c: &Credentials) -> anyhow::Result<Link> {
    let (rest, tls) = match (c.mqtt.split_once("://"), &c.tls) {
        (Some(("mqtt", rest)), None) => (rest, None),
        (Some(("mqtts", rest)), Some(tls)) => (rest, Some(tls)),
        (Some(("mqtts", _)), None) => {
            anyhow::bail!(
                "the broker {:?} speaks TLS but the credentials carry none: enrol again",
                c.mqtt
            )
        }
        _ => anyhow::bail!("unsupported broker address {:?}", c.mqtt),
    };
    let (prefix, tls) = match tls {
        None => (String::new(), None),
        Some(t) => {
            let (config, prefix) =
                gemba_shared::broker::tls::of_device(t).context("the credentials' TLS")?;
            (
                prefix,
                Some(rumqttc::TlsConfiguration::Rustls(std::sync::Arc::new(
                    config,
                ))),
            )
        }
    };
    let (host, port) = rest
        .trim_end_matches('/')
        .rsplit_once(':')
        .with_context(|| format!("no port in {:?}", c.mqtt))?;
    Ok(Link {
        host: host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
        port: port
            .parse()
            .with_context(|| format!("bad port in {:?}", c.mqtt))?,
        org: c.organization,
        device: c.device,
        kid: c.credential_id.to_string(),
        key: STANDARD.decode(&c.key).context("the key is not base64")?,
        tls,
        prefix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_round_trip_privately_and_describe_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let c = Credentials {
            organization: 3,
            device: 9,
            display_name: "Bench".into(),
            credential_id: 2,
            key: STANDARD.encode([7u8; 32]),
            mqtt: "mqtt://broker.local:1884".into(),
            tls: None,
            release_key: None,
        };
        let p = dir.path().join("agent/credentials.json");
        let e = Enrolment {
            credentials: c.clone(),
            cloud_ca: Some("-----BEGIN CERTIFICATE-----…".into()),
        };
        save(&p, &e).unwrap();
        assert_eq!(load(&p).unwrap(), e);
        // The file is the credentials as the cloud gave them, with the authority beside.
        let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        assert_eq!(file["device"], 9);
        assert_eq!(file["cloud_ca"], "-----BEGIN CERTIFICATE-----…");
        // A file written before HTTPS: the credentials alone.
        std::fs::write(&p, serde_json::to_vec(&c).unwrap()).unwrap();
        assert_eq!(
            load(&p).unwrap(),
            Enrolment {
                credentials: c.clone(),
                cloud_ca: None
            }
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        let l = link(&c).unwrap();
        assert_eq!(
            (l.host.as_str(), l.port, l.org, l.device, l.kid.as_str()),
            ("broker.local", 1884, 3, 9, "2")
        );
        assert_eq!(l.key, vec![7u8; 32]);
        assert!(l.tls.is_none() && l.prefix.is_empty());
        // TLS named without its material is refused with what to do.
        let e = link(&Credentials {
            mqtt: "mqtts://h:1".into(),
            ..c.clone()
        })
        .unwrap_err();
        assert!(e.to_string().contains("enrol again"), "{e}");
        for bad in ["tcp://h:1", "mqtt://h", "mqtt://h:x"] {
            assert!(
                link(&Credentials {
                    mqtt: bad.into(),
                    ..c.clone()
                })
                .is_err(),
                "{bad}"
            );
        }
        assert!(
            load(&dir.path().join("none.json"))
                .unwrap_err()
                .to_string()
                .contains("enrol")
        );
    }
}
