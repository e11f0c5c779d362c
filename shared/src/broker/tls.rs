//! A device's TLS to the embedded broker (feature `broker-tls`): it presents the client
//! certificate the cloud issued at enrolment (whose organisation names the device's
//! tenant) and accepts only a broker certificate that the cloud's own authority issued
//! for [`BROKER_NAME`], the authority the enrolment pinned. No public authority is
//! trusted, so a certificate bought for any name cannot stand in for the broker.

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
    #[error("TLS set-up: {0}")]
    Rustls(#[from] rustls::Error),
}

/// The client configuration of a device: its certificate chain and key (PEM), and the
/// pinned authority `ca` (PEM) its broker's certificate must come from.
pub fn client_config(ca: &str, cert: &str, key: &str) -> Result<ClientConfig, TlsError> {
    let provider = Arc::new(ring::default_provider());
    let mut roots = RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca.as_bytes()) {
        let c = c.map_err(|e| TlsError::Ca(e.to_string()))?;
        roots.add(c).map_err(|e| TlsError::Ca(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(TlsError::Ca("no certificate".into()));
    }
    let chain = CertificateDer::pem_slice_iter(cert.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Cert(e.to_string()))?;
    if chain.is_empty() {
        return Err(TlsError::Cert("no certificate".into()));
    }
    let key =
        PrivateKeyDer::from_pem_slice(key.as_bytes()).map_err(|e| TlsError::Key(e.to_string()))?;
    let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| TlsError::Ca(e.to_string()))?;
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Pinned { inner }))
        .with_client_auth_cert(chain, key)?;
    Ok(config)
}

/// The client configuration of the device whose enrolment gave `tls`, and the prefix
/// the broker puts on its topics (its tenant's).
pub fn of_device(tls: &BrokerTls) -> Result<(ClientConfig, String), TlsError> {
    Ok((
        client_config(&tls.ca, &tls.cert, &tls.key)?,
        tenant_prefix(&tls.tenant),
    ))
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
    use super::*;

    #[test]
    fn material_that_is_not_pem_says_which_part() {
        let e = client_config("", "", "").unwrap_err();
        assert!(matches!(e, TlsError::Ca(_)), "{e}");
        let e = client_config("not a certificate", "x", "y").unwrap_err();
        assert!(e.to_string().contains("certificate authority"), "{e}");
    }
}
