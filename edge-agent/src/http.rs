//! The agent's HTTP to the cloud: enrolment, clip and recording uploads, model
//! downloads. One client, made here ([`client`]): rustls (ring), trusting the public
//! certificate authorities (webpki roots) and, when enrolment was given one
//! (`--cloud-ca`), the cloud's private authority, kept with the credentials. `run` makes
//! it once from the credentials and hands it to what uploads and downloads.
//!
//! Enrolment sends the device's key back in its answer, so it is refused over plain
//! `http://` to a host that is not this machine's loopback, unless the operator says
//! `--insecure-http` ([`check_enrol_url`]).

use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};

/// A client trusting the public authorities and, if given, `cloud_ca` (PEM, one or more
/// certificates).
pub fn client(cloud_ca: Option<&str>) -> anyhow::Result<reqwest::Client> {
    let mut b = reqwest::Client::builder()
        .use_rustls_tls()
        .connect_timeout(std::time::Duration::from_secs(30));
    if let Some(pem) = cloud_ca {
        for cert in authorities(pem)? {
            b = b.add_root_certificate(cert);
        }
    }
    b.build().context("making the HTTP client")
}

/// The certificates of `pem`; none is an error.
pub fn authorities(pem: &str) -> anyhow::Result<Vec<reqwest::Certificate>> {
    let certs = reqwest::Certificate::from_pem_bundle(pem.as_bytes())
        .context("the cloud's certificate authority is not PEM")?;
    if certs.is_empty() {
        bail!("the cloud's certificate authority holds no PEM certificate");
    }
    Ok(certs)
}

/// Whether `e` (or an error under it) is the cloud's certificate failing verification:
/// an authority the client does not trust, a name it was not issued for, expiry.
pub fn untrusted_certificate(e: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(tls) = e.downcast_ref::<rustls::Error>() {
        return matches!(tls, rustls::Error::InvalidCertificate(_));
    }
    // An I/O error's `source` skips the error it wraps (reqwest nests two).
    let wrapped = e
        .downcast_ref::<std::io::Error>()
        .and_then(std::io::Error::get_ref);
    if let Some(inner) = wrapped
        && untrusted_certificate(inner)
    {
        return true;
    }
    e.source().is_some_and(untrusted_certificate)
}

/// Refuses an enrolment address that would send the device's key across the network
/// unencrypted: `http://` to a host other than loopback (`127.0.0.0/8`, `::1`,
/// `localhost`), unless `insecure_http`. Anything but `http://` and `https://` is
/// refused too.
pub fn check_enrol_url(cloud: &str, insecure_http: bool) -> anyhow::Result<()> {
    let url = reqwest::Url::parse(cloud)
        .with_context(|| format!("--cloud {cloud:?} is not an address (https://host:port)"))?;
    match url.scheme() {
        "https" => Ok(()),
        "http" if insecure_http || url.host_str().is_some_and(is_loopback) => Ok(()),
        "http" => bail!(
            "--cloud {cloud} is plain HTTP to another machine: the device's key would cross \
             the network unencrypted. Use the cloud's https:// address (with --cloud-ca FILE \
             if its certificate comes from a private authority), or, on a network you trust, \
             add --insecure-http"
        ),
        other => bail!("--cloud {cloud}: {other}:// is not HTTP; use https://host:port"),
    }
}

/// Whether `host` (as a URL names it: IPv6 in brackets) is this machine's loopback.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        // RFC 6761: `localhost` and names under it are loopback.
        Err(_) => {
            let h = host.trim_end_matches('.').to_ascii_lowercase();
            h == "localhost" || h.ends_with(".localhost")
        }
    }
}

/// Downloads `url` to `dest`, checking its size and SHA-256 on the way (`what` names it
/// in errors: "the model", "the release"): it is written to `part` first and renamed
/// into place only when both match, so a failed check leaves nothing.
pub async fn download_checked(
    http: &reqwest::Client,
    url: &str,
    part: &Path,
    dest: &Path,
    sha256: &str,
    size: i64,
    what: &str,
) -> anyhow::Result<()> {
    use futures_util::StreamExt;
    use sha2::{Digest, Sha256};
    use tokio::io::AsyncWriteExt;

    for d in [part.parent(), dest.parent()].into_iter().flatten() {
        tokio::fs::create_dir_all(d).await?;
    }
    let res = http
        .get(url)
        .timeout(Duration::from_secs(600))
        .send()
        .await
        .with_context(|| format!("reaching {url}"))?;
    if !res.status().is_success() {
        bail!("the cloud answered {}", res.status());
    }
    let mut hash = Sha256::new();
    let mut got: i64 = 0;
    let mut file = tokio::fs::File::create(part).await?;
    let mut body = res.bytes_stream();
    let r: anyhow::Result<()> = async {
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            got += chunk.len() as i64;
            if got > size {
                bail!("{what} is larger than the {size} bytes announced");
            }
            hash.update(&chunk);
            file.write_all(&chunk).await?;
        }
        file.flush().await?;
        file.sync_all().await?;
        if got != size {
            bail!("{what} has {got} bytes, not the {size} announced");
        }
        let hex = gemba_shared::hex(&hash.finalize());
        if !hex.eq_ignore_ascii_case(sha256) {
            bail!("{what}'s SHA-256 is {hex}, not {sha256}");
        }
        Ok(())
    }
    .await;
    if let Err(e) = r {
        let _ = tokio::fs::remove_file(part).await;
        return Err(e);
    }
    tokio::fs::rename(part, dest).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_is_refused_off_loopback_unless_asked_for() {
        for ok in [
            "https://gemba.example.com",
            "https://10.0.0.5:8443",
            "http://127.0.0.1:8080",
            "http://127.1.2.3:8080/",
            "http://[::1]:8080",
            "http://localhost:8080",
            "http://LOCALHOST.:8080",
            "http://admin.localhost:8080",
        ] {
            check_enrol_url(ok, false).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for plain in [
            "http://gemba.example.com:8080",
            "http://10.0.0.5:8080",
            "http://[fe80::1]:8080",
            "http://0.0.0.0:8080",
            "http://localhost.example.com",
            "http://127.0.0.1.example.com",
        ] {
            let e = check_enrol_url(plain, false).unwrap_err().to_string();
            assert!(
                e.contains("unencrypted") && e.contains("--insecure-http"),
                "{plain}: {e}"
            );
            check_enrol_url(plain, true).unwrap();
        }
        for bad in ["ftp://h", "gemba.example.com:8080", ""] {
            assert!(check_enrol_url(bad, true).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_private_authority_must_hold_a_certificate() {
        let made = rcgen::generate_simple_self_signed(vec!["gemba.test".into()]).unwrap();
        let ca = made.cert.pem();
        assert_eq!(authorities(&ca).unwrap().len(), 1);
        client(Some(&ca)).unwrap();
        assert!(authorities("nothing here").is_err());
        assert!(client(Some("")).is_err());
    }

    /// A TLS server on loopback with a self-signed certificate for `localhost`: it
    /// takes one connection and handshakes.
    fn tls_server() -> (u16, String) {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let cert = made.cert.der().clone();
        let key =
            rustls::pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut sock, _) = listener.accept().unwrap();
            let mut conn = rustls::ServerConnection::new(std::sync::Arc::new(config)).unwrap();
            let _ = conn.complete_io(&mut sock);
        });
        (port, made.cert.pem())
    }

    #[tokio::test]
    async fn an_untrusted_certificate_is_told_apart() {
        let (port, _) = tls_server();
        let e = client(None)
            .unwrap()
            .get(format!("https://localhost:{port}/"))
            .send()
            .await
            .unwrap_err();
        assert!(untrusted_certificate(&e), "{e:?}");
        // A refused connection is another failure.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let e = client(None)
            .unwrap()
            .get(format!("https://localhost:{port}/"))
            .send()
            .await
            .unwrap_err();
        assert!(!untrusted_certificate(&e), "{e:?}");
    }
}
