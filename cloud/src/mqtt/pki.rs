//! The embedded broker's certificates (`mqtt_tls`): a certificate authority the cloud
//! makes for itself on first start and keeps in `{data}/mqtt-tls/` (the key readable by
//! the cloud's user only), the broker's server certificate for
//! [`gemba_shared::broker::BROKER_NAME`], and each device's client certificate, made at
//! enrolment, whose organisation is the device's tenant. The agent pins the authority,
//! so no public one is needed; the broker accepts only client certificates from it.
//!
//! An operator may give the broker a certificate of their own instead (`mqtt_tls_cert`,
//! `mqtt_tls_key`, `mqtt_tls_ca`, [`Pki::serve_operator`]): it is checked at start as
//! agents will check it (issued by the authority given, valid for the host of
//! `mqtt_public_url`, its key its own), and enrolments name that authority, which
//! agents then trust for the host they dial. Client certificates still come from the
//! cloud's authority.
//!
//! Certificates are not revoked: a device's certificate only places it in its tenant,
//! and the broker also asks for its login (`access.rs`), which revoking ends.

use std::path::{Path, PathBuf};

use anyhow::Context;
use gemba_shared::api::v1::device::BrokerTls;
use gemba_shared::broker::{BROKER_NAME, tenant};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};

/// The files of the broker's TLS, as rumqttd reads them.
#[derive(Debug, Clone)]
pub struct BrokerFiles {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// The cloud's authority for the embedded broker.
pub struct Pki {
    ca_pem: String,
    issuer: Issuer<'static, KeyPair>,
    files: BrokerFiles,
    /// The authority of an operator's broker certificate (PEM), when one is served.
    server_ca: Option<String>,
}

impl std::fmt::Debug for Pki {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pki").field("files", &self.files).finish()
    }
}

/// The authority's parameters: the same at every start, so that the kept key with them
/// issues certificates that chain to the kept certificate.
fn ca_params() -> CertificateParams {
    let mut p = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, "gemba broker authority");
    p.distinguished_name = dn;
    p.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    p
}

fn leaf(cn: &str, usage: ExtendedKeyUsagePurpose) -> CertificateParams {
    let mut p = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, cn);
    p.distinguished_name = dn;
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    p.extended_key_usages = vec![usage];
    p.use_authority_key_identifier_extension = true;
    p
}

impl Pki {
    /// The authority kept in `dir` (made there, with the broker's certificate, the first
    /// time).
    pub fn open(dir: &Path) -> anyhow::Result<Pki> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let files = BrokerFiles {
            ca: dir.join("ca.pem"),
            cert: dir.join("broker.pem"),
            key: dir.join("broker.key"),
        };
        let ca_key_path = dir.join("ca.key");
        let (ca_pem, ca_key) = if ca_key_path.exists() && files.ca.exists() {
            let key = std::fs::read_to_string(&ca_key_path)
                .with_context(|| format!("reading {}", ca_key_path.display()))?;
            let key = KeyPair::from_pem(&key)
                .with_context(|| format!("{} is not a key", ca_key_path.display()))?;
            (std::fs::read_to_string(&files.ca)?, key)
        } else {
            let key = KeyPair::generate()?;
            let cert = ca_params().self_signed(&key)?;
            write_private(&ca_key_path, &key.serialize_pem())?;
            std::fs::write(&files.ca, cert.pem())?;
            // A new authority: the broker's certificate of an older one goes with it.
            let _ = std::fs::remove_file(&files.cert);
            (cert.pem(), key)
        };
        let pki = Pki {
            ca_pem,
            issuer: Issuer::new(ca_params(), ca_key),
            files,
            server_ca: None,
        };
        if !pki.files.cert.exists() || !pki.files.key.exists() {
            let key = KeyPair::generate()?;
            let mut p = leaf(BROKER_NAME, ExtendedKeyUsagePurpose::ServerAuth);
            p.subject_alt_names = vec![rcgen::SanType::DnsName(BROKER_NAME.try_into()?)];
            let cert = p.signed_by(&key, &pki.issuer)?;
            write_private(&pki.files.key, &key.serialize_pem())?;
            std::fs::write(&pki.files.cert, cert.pem())?;
        }
        Ok(pki)
    }

    /// Serves the operator's certificate of `settings` (see the module header), when
    /// given, after checking it.
    pub fn serve_operator(&mut self, settings: &crate::config::Settings) -> anyhow::Result<()> {
        let (cert, key, ca) = match (
            &settings.mqtt_tls_cert,
            &settings.mqtt_tls_key,
            &settings.mqtt_tls_ca,
        ) {
            (None, None, None) => return Ok(()),
            (Some(c), Some(k), Some(a)) => (c, k, a),
            _ => anyhow::bail!(
                "mqtt_tls_cert, mqtt_tls_key and mqtt_tls_ca go together: set all three or none"
            ),
        };
        let host = settings
            .mqtt_public_url
            .as_deref()
            .and_then(|u| reqwest::Url::parse(u).ok())
            .and_then(|u| u.host_str().map(|h| h.trim_matches(['[', ']']).to_string()))
            .context(
                "mqtt_tls_cert: set mqtt_public_url to the broker's address as agents reach \
                 it (mqtts://host:port), a host the certificate is valid for",
            )?;
        let read = |p: &PathBuf| {
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))
        };
        let ca_pem = read(ca)?;
        gemba_shared::broker::tls::check_server(&read(cert)?, &read(key)?, &ca_pem, &host)
            .with_context(|| format!("mqtt_tls_cert {}", cert.display()))?;
        self.files.cert = cert.clone();
        self.files.key = key.clone();
        self.server_ca = Some(ca_pem);
        Ok(())
    }

    pub fn files(&self) -> &BrokerFiles {
        &self.files
    }

    /// The authority's certificate (PEM), which agents pin.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// A new client certificate and key for device `device`, in its own tenant.
    pub fn device_tls(&self, device: i64) -> anyhow::Result<BrokerTls> {
        let tenant = tenant(device);
        let key = KeyPair::generate()?;
        let mut p = leaf(
            &gemba_shared::broker::username(device),
            ExtendedKeyUsagePurpose::ClientAuth,
        );
        p.distinguished_name
            .push(DnType::OrganizationName, tenant.as_str());
        let cert = p.signed_by(&key, &self.issuer)?;
        Ok(BrokerTls {
            ca: self.ca_pem.clone(),
            cert: cert.pem(),
            key: key.serialize_pem(),
            tenant,
            server_ca: self.server_ca.clone(),
        })
    }
}

/// Writes a private key readable by the cloud's user only.
fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_authority_is_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let a = Pki::open(dir.path()).unwrap();
        let mode = std::fs::metadata(dir.path().join("ca.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let broker = std::fs::read_to_string(&a.files().cert).unwrap();
        let b = Pki::open(dir.path()).unwrap();
        assert_eq!(a.ca_pem(), b.ca_pem());
        assert_eq!(broker, std::fs::read_to_string(&b.files().cert).unwrap());
        let other = tempfile::tempdir().unwrap();
        assert_ne!(Pki::open(other.path()).unwrap().ca_pem(), a.ca_pem());
    }

    #[test]
    fn a_device_certificate_names_its_tenant() {
        let dir = tempfile::tempdir().unwrap();
        let pki = Pki::open(dir.path()).unwrap();
        let tls = pki.device_tls(7).unwrap();
        assert_eq!(tls.tenant, "d7");
        assert!(
            tls.cert.starts_with("-----BEGIN CERTIFICATE-----"),
            "{}",
            tls.cert
        );
        assert!(tls.key.contains("PRIVATE KEY"));
        assert_eq!(tls.ca, pki.ca_pem());
        // Two enrolments of one device get different keys.
        assert_ne!(pki.device_tls(7).unwrap().key, tls.key);
    }
}
