//! HTTPS for the API and the portal from a configured certificate (`tls_cert`,
//! `tls_key`: PEM files, both or neither; issue 28). Set, the HTTP listener serves
//! HTTPS only: rustls with the workspace's ring provider, HTTP/2 and HTTP/1.1 chosen by
//! ALPN, through `axum-server` (which does the handshakes off the accept loop, with a
//! time limit). A plain HTTP request to that port gets no HTTP answer: the handshake
//! fails and the connection closes. The files are read once, at start.
//!
//! The other way, a reverse proxy terminating TLS in front of a plain listener, needs
//! nothing here: `trusted_proxies` and an `https://` `public_url` (README "Deployment").

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use axum::Router;
use axum::extract::connect_info::IntoMakeServiceWithConnectInfo;
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;

use crate::config::Settings;

/// The server's TLS from the settings: `None` for plain HTTP. A setting given without
/// the other, a file that cannot be read, holds no PEM certificate or key, or a key
/// that is not the certificate's, is an error naming the setting and the file.
pub fn server_config(s: &Settings) -> anyhow::Result<Option<ServerConfig>> {
    let (cert, key) = match (&s.tls_cert, &s.tls_key) {
        (None, None) => return Ok(None),
        (Some(c), Some(k)) => (c, k),
        (Some(_), None) => bail!(
            "tls_cert is set but tls_key is not: HTTPS needs both (PEM files), plain HTTP \
             neither"
        ),
        (None, Some(_)) => bail!(
            "tls_key is set but tls_cert is not: HTTPS needs both (PEM files), plain HTTP \
             neither"
        ),
    };
    let chain = certificates(cert)?;
    let private = private_key(key)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("the TLS versions")?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .with_context(|| {
            format!(
                "tls_key {} is not the key of the certificate in tls_cert {}",
                key.display(),
                cert.display()
            )
        })?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Some(config))
}

fn read(setting: &str, path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {setting} {}", path.display()))
}

/// The certificate chain in `path`, the server's own first.
fn certificates(path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let pem = read("tls_cert", path)?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("tls_cert {} is not PEM", path.display()))?;
    if chain.is_empty() {
        bail!(
            "tls_cert {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            path.display()
        );
    }
    Ok(chain)
}

/// The private key in `path` (PKCS#8, PKCS#1 or SEC1).
fn private_key(path: &Path) -> anyhow::Result<PrivateKeyDer<'static>> {
    let pem = read("tls_key", path)?;
    PrivateKeyDer::from_pem_slice(&pem).with_context(|| {
        format!(
            "tls_key {} holds no PEM private key (-----BEGIN PRIVATE KEY-----)",
            path.display()
        )
    })
}

/// Serves `app` over HTTPS on `listener` until `shutdown` resolves, then lets the open
/// connections finish (as `axum::serve`'s graceful shutdown).
pub async fn serve(
    listener: TcpListener,
    tls: ServerConfig,
    app: IntoMakeServiceWithConnectInfo<Router, SocketAddr>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let handle = axum_server::Handle::new();
    let stop = handle.clone();
    tokio::spawn(async move {
        shutdown.await;
        stop.graceful_shutdown(None);
    });
    let config = axum_server::tls_rustls::RustlsConfig::from_config(Arc::new(tls));
    axum_server::tls_rustls::from_tcp_rustls(listener.into_std()?, config)?
        .handle(handle)
        .serve(app)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(cert: Option<&Path>, key: Option<&Path>) -> Settings {
        Settings {
            tls_cert: cert.map(Path::to_path_buf),
            tls_key: key.map(Path::to_path_buf),
            ..Default::default()
        }
    }

    fn error(s: &Settings) -> String {
        format!("{:#}", server_config(s).unwrap_err())
    }

    #[test]
    fn both_files_or_neither_and_each_error_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let made = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let (cert, key, other_key, junk) = (
            dir.path().join("cert.pem"),
            dir.path().join("key.pem"),
            dir.path().join("other.pem"),
            dir.path().join("junk.pem"),
        );
        std::fs::write(&cert, made.cert.pem()).unwrap();
        std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
        std::fs::write(&other_key, other.signing_key.serialize_pem()).unwrap();
        std::fs::write(&junk, "not a certificate").unwrap();

        assert!(server_config(&settings(None, None)).unwrap().is_none());
        let c = server_config(&settings(Some(&cert), Some(&key)))
            .unwrap()
            .unwrap();
        assert_eq!(c.alpn_protocols, [b"h2".to_vec(), b"http/1.1".to_vec()]);

        let e = error(&settings(Some(&cert), None));
        assert!(e.contains("tls_cert is set but tls_key is not"), "{e}");
        let e = error(&settings(None, Some(&key)));
        assert!(e.contains("tls_key is set but tls_cert is not"), "{e}");
        let missing = dir.path().join("missing.pem");
        let e = error(&settings(Some(&missing), Some(&key)));
        assert!(
            e.contains(&format!("reading tls_cert {}", missing.display())),
            "{e}"
        );
        let e = error(&settings(Some(&junk), Some(&key)));
        assert!(
            e.contains(&format!("tls_cert {} holds no PEM", junk.display())),
            "{e}"
        );
        let e = error(&settings(Some(&cert), Some(&junk)));
        assert!(
            e.contains(&format!("tls_key {} holds no PEM", junk.display())),
            "{e}"
        );
        // A key and certificate swapped, and a key of another certificate.
        let e = error(&settings(Some(&key), Some(&cert)));
        assert!(e.contains("tls_cert"), "{e}");
        let e = error(&settings(Some(&cert), Some(&other_key)));
        assert!(
            e.contains(&format!("tls_key {} is not the key", other_key.display())),
            "{e}"
        );
    }
}
