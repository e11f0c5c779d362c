//! A device's TLS to the embedded broker (feature `broker-tls`): it presents the client
//! certificate the cloud issued at enrolment (whose organisation names the device's
//! tenant) and accepts only a broker certificate that the cloud's own authority issued
//! for [`BROKER_NAME`], the authority the enrolment pinned. No public authority is
//! trusted, so a certificate bought for any name cannot stand in for the broker.
//!
//! Where the operator gave the broker a certificate of their own (`mqtt_tls_cert`), the
//! enrolment names its authority instead (`BrokerTls::server_ca`), and the certificate
//! is checked the usual way, for the host the agent dials; [`check_server`] is the
//! cloud's check of such a certificate at start.

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::ring;
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};

use super::{BROKER_NAME, tenant_prefix};
use crate::api::v1::device::BrokerTls;

/// Why a device's TLS material cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("the broker's certificate authority is not a PEM certificate: {0}")]
    Ca(String),
    #[error("the device's certificate is not a PEM certificate: {0}")]
    Cert(String),
    #[error("the device's private key is not a PEM key: {0}")]
    Key(String),
    #[error("the broker's certificate: {0}")]
    Server(String),
    #[error("TLS set-up: {0}")]
    Rustls(#[from] rustls::Error),
}

/// The authorities in `ca` (PEM), at least one.
fn roots(ca: &str) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca.as_bytes()) {
        let c = c.map_err(|e| TlsError::Ca(e.to_string()))?;
        roots.add(c).map_err(|e| TlsError::Ca(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(TlsError::Ca("no certificate".into()));
    }
    Ok(roots)
}

/// A certificate chain (PEM), at least one certificate; `bad` says whose.
fn chain(pem: &str, bad: fn(String) -> TlsError) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let chain = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if chain.is_empty() {
        return Err(bad("no certificate".into()));
    }
    Ok(chain)
}

fn verifier(
    ca: &str,
    provider: &Arc<rustls::crypto::CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, TlsError> {
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots(ca)?), provider.clone())
        .build()
        .map_err(|e| TlsError::Ca(e.to_string()))
}

/// The client configuration of a device: its certificate chain and key (PEM), and the
/// pinned authority `ca` (PEM) its broker's certificate must come from, for
/// [`BROKER_NAME`]; or, with `server_ca`, that authority, for the host dialled.
pub fn client_config(
    ca: &str,
    server_ca: Option<&str>,
    cert: &str,
    key: &str,
) -> Result<ClientConfig, TlsError> {
    let provider = Arc::new(ring::default_provider());
    let chain = chain(cert, TlsError::Cert)?;
    let key =
        PrivateKeyDer::from_pem_slice(key.as_bytes()).map_err(|e| TlsError::Key(e.to_string()))?;
    let check: Arc<dyn ServerCertVerifier> = match server_ca {
        None => Arc::new(Pinned {
            inner: verifier(ca, &provider)?,
        }),
        Some(server_ca) => verifier(server_ca, &provider)?,
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(check)
        .with_client_auth_cert(chain, key)?;
    Ok(config)
}

/// The client configuration of the device whose enrolment gave `tls`, and the prefix
/// the broker puts on its topics (its tenant's).
pub fn of_device(tls: &BrokerTls) -> Result<(ClientConfig, String), TlsError> {
    Ok((
        client_config(&tls.ca, tls.server_ca.as_deref(), &tls.cert, &tls.key)?,
        tenant_prefix(&tls.tenant),
    ))
}

/// Checks an operator's broker certificate as agents will: the chain `cert` (PEM) with
/// its private key `key` (PEM), issued by `ca` (PEM) and valid now for `host` (the
/// host agents dial: a DNS name or an IP address).
pub fn check_server(cert: &str, key: &str, ca: &str, host: &str) -> Result<(), TlsError> {
    let provider = Arc::new(ring::default_provider());
    let chain = chain(cert, TlsError::Server)?;
    let key = PrivateKeyDer::from_pem_slice(key.as_bytes())
        .map_err(|e| TlsError::Server(format!("its key is not a PEM key: {e}")))?;
    let signing = provider
        .key_provider
        .load_private_key(key)
        .map_err(|e| TlsError::Server(format!("its key: {e}")))?;
    rustls::sign::CertifiedKey::new(chain.clone(), signing)
        .keys_match()
        .map_err(|_| TlsError::Server("its key is not the certificate's".into()))?;
    let name = ServerName::try_from(host.to_string())
        .map_err(|_| TlsError::Server(format!("{host:?} is not a host name")))?;
    verifier(ca, &provider)?
        .verify_server_cert(&chain[0], &chain[1..], &name, &[], UnixTime::now())
        .map_err(|e| {
            TlsError::Server(format!(
                "not valid for {host} from the authority given: {e}"
            ))
        })?;
    Ok(())
}

/// The standard checks against the pinned authority, for [`BROKER_NAME`] rather than
/// the address dialled.
#[derive(Debug)]
struct Pinned {
    inner: Arc<WebPkiServerVerifier>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _dialled: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let name = ServerName::try_from(BROKER_NAME).expect("a DNS name");
        self.inner
            .verify_server_cert(end_entity, intermediates, &name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};

    use super::*;

    /// An authority (PEM) and its issuer.
    fn authority() -> (String, Issuer<'static, KeyPair>) {
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::default();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let pem = p.self_signed(&key).unwrap().pem();
        (pem, Issuer::new(p, key))
    }

    /// A certificate for `names` from `issuer`: (certificate, key), PEM.
    fn issued(issuer: &Issuer<'static, KeyPair>, names: &[&str]) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::default();
        p.subject_alt_names = names
            .iter()
            .map(|n| match n.parse() {
                Ok(ip) => SanType::IpAddress(ip),
                Err(_) => SanType::DnsName((*n).try_into().unwrap()),
            })
            .collect();
        (
            p.signed_by(&key, issuer).unwrap().pem(),
            key.serialize_pem(),
        )
    }

    #[test]
    fn material_that_is_not_pem_says_which_part() {
        let (_, issuer) = authority();
        let (cert, key) = issued(&issuer, &["d1"]);
        let e = client_config("", None, "", "").unwrap_err();
        assert!(matches!(e, TlsError::Cert(_)), "{e}");
        let e = client_config("not a certificate", None, &cert, &key).unwrap_err();
        assert!(e.to_string().contains("certificate authority"), "{e}");
        let e = client_config(&cert, None, &cert, "not a key").unwrap_err();
        assert!(matches!(e, TlsError::Key(_)), "{e}");
    }

    #[test]
    fn an_operator_s_certificate_is_checked_as_agents_will() {
        let (ca, issuer) = authority();
        let (cert, key) = issued(&issuer, &["broker.plant.example", "10.0.0.5"]);
        check_server(&cert, &key, &ca, "broker.plant.example").unwrap();
        check_server(&cert, &key, &ca, "10.0.0.5").unwrap();
        let e = check_server(&cert, &key, &ca, "other.example").unwrap_err();
        assert!(e.to_string().contains("not valid for other.example"), "{e}");
        let (other_ca, other) = authority();
        let e = check_server(&cert, &key, &other_ca, "broker.plant.example").unwrap_err();
        assert!(e.to_string().contains("not valid for"), "{e}");
        let (_, other_key) = issued(&other, &["broker.plant.example"]);
        let e = check_server(&cert, &other_key, &ca, "broker.plant.example").unwrap_err();
        assert!(e.to_string().contains("not the certificate's"), "{e}");
        let e = check_server("", &key, &ca, "broker.plant.example").unwrap_err();
        assert!(matches!(e, TlsError::Server(_)), "{e}");
    }
}
