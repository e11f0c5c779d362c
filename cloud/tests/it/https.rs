//! HTTPS from a configured certificate (issue 28): the real server with `tls_cert` and
//! `tls_key` from a private certificate authority made here (rcgen), for `localhost` and
//! `127.0.0.1`. It answers over HTTPS (HTTP/1.1 and HTTP/2 by ALPN) with
//! `Strict-Transport-Security`, gives plain HTTP no answer and fails the handshake of a
//! client that does not trust the authority; a certificate it cannot use stops the start
//! with a message naming the setting. The real agent binary enrols over HTTPS with
//! `--cloud-ca`, keeps the authority with its credentials and uploads a recording through
//! it; without it, or over plain HTTP to another host, enrolment is refused and says why.
//! SQLite only: TLS is the listener's, the same for either database.
//!
//! The recording needs what `learning_loop.rs` needs (the demo footage, the agent
//! binary, ORT).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use gemba_shared::api::v1::device::DeviceDetails;
use gemba_shared::api::v1::task::{Task, TaskCreate};
use gemba_shared::api::v1::video::{RecordRequest, Video, VideoStatus};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
use reqwest::StatusCode;
use rustls_pki_types::pem::PemObject;

use crate::common::*;
use crate::devices::added;
use crate::learning_loop::{Agent, agent_bin, models_dir, until};

/// A private authority and a server certificate it issued, as PEM files.
struct Pki {
    dir: tempfile::TempDir,
    ca: String,
    cert: PathBuf,
    key: PathBuf,
}

fn pki() -> Pki {
    let dir = tempfile::tempdir().unwrap();
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "gemba test authority");
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let mut server = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    server
        .subject_alt_names
        .push(SanType::IpAddress([127, 0, 0, 1].into()));
    let cert = server.signed_by(&key, &issuer).unwrap();
    let p = Pki {
        ca: ca_cert.pem(),
        cert: dir.path().join("cert.pem"),
        key: dir.path().join("key.pem"),
        dir,
    };
    std::fs::write(&p.cert, cert.pem()).unwrap();
    std::fs::write(&p.key, key.serialize_pem()).unwrap();
    std::fs::write(p.ca_file(), &p.ca).unwrap();
    p
}

impl Pki {
    fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }
}

async fn https_app(p: &Pki) -> TestApp {
    let (cert, key) = (p.cert.clone(), p.key.clone());
    TestApp::start_https(Backend::Sqlite, &p.ca, |s| {
        s.tls_cert = Some(cert);
        s.tls_key = Some(key);
    })
    .await
}

fn port(app: &TestApp) -> u16 {
    app.state.settings.http.port()
}

/// Every message of an error and its causes, one line.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(e) = next {
        out = format!("{out}: {e}");
        next = e.source();
    }
    out
}

/// The ALPN protocol the server chose when offered `offered`, and whether it then
/// speaks HTTP/2 (a SETTINGS frame after the client's preface).
fn negotiate(ca: &str, port: u16, offered: &[&[u8]]) -> (Option<Vec<u8>>, bool) {
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls_pki_types::CertificateDer::pem_slice_iter(ca.as_bytes()) {
        roots.add(c.unwrap()).unwrap();
    }
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = offered.iter().map(|p| p.to_vec()).collect();
    let name = "localhost".try_into().unwrap();
    let mut conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let mut sock = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut tls = rustls::Stream::new(&mut conn, &mut sock);
    // The preface and an empty SETTINGS frame; an HTTP/2 server answers with SETTINGS.
    tls.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .unwrap();
    let mut head = [0u8; 9];
    let h2 = tls.read_exact(&mut head).is_ok() && head[3] == 0x04;
    (conn.alpn_protocol().map(<[u8]>::to_vec), h2)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answers_over_https_with_strict_transport_and_http2_by_alpn() {
    let p = pki();
    let app = https_app(&p).await;
    assert!(app.base.starts_with("https://"), "{}", app.base);
    let r = app
        .client
        .get(format!("{}/health", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.version(), reqwest::Version::HTTP_11);
    assert_eq!(
        r.headers()["strict-transport-security"],
        gemba_cloud::http::security::STRICT_TRANSPORT
    );
    // The portal's answers carry it too, and the name in the certificate works.
    let r = app
        .client
        .get(format!(
            "https://localhost:{}/portal-config.json",
            port(&app)
        ))
        .send()
        .await
        .unwrap();
    assert!(r.headers().contains_key("strict-transport-security"));

    let (ca, port) = (p.ca.clone(), port(&app));
    let (h2, h1) = tokio::task::spawn_blocking(move || {
        (
            negotiate(&ca, port, &[b"h2", b"http/1.1"]),
            negotiate(&ca, port, &[b"http/1.1"]),
        )
    })
    .await
    .unwrap();
    assert_eq!(h2, (Some(b"h2".to_vec()), true));
    assert_eq!(h1.0.as_deref(), Some(&b"http/1.1"[..]));

    // A cloud without a certificate says nothing of it.
    let plain = TestApp::start(Backend::Sqlite).await;
    let r = plain
        .client
        .get(format!("{}/health", plain.base))
        .send()
        .await
        .unwrap();
    assert!(!r.headers().contains_key("strict-transport-security"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_gets_no_answer_and_a_client_without_the_authority_is_refused() {
    let p = pki();
    let app = https_app(&p).await;
    let port = port(&app);
    // A plain request to the HTTPS port: no HTTP answer comes back.
    let heard = tokio::task::spawn_blocking(move || {
        let mut sock = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(15)))
            .unwrap();
        sock.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .unwrap();
        let mut heard = vec![];
        let _ = sock.read_to_end(&mut heard);
        heard
    })
    .await
    .unwrap();
    assert!(
        !heard.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&heard)
    );
    let e = reqwest::get(format!("http://127.0.0.1:{port}/api/health"))
        .await
        .unwrap_err();
    assert!(e.status().is_none(), "{e}");

    // A client trusting only the public authorities fails at the handshake.
    let e = reqwest::get(format!("https://localhost:{port}/api/health"))
        .await
        .unwrap_err();
    let why = chain(&e);
    assert!(why.contains("invalid peer certificate"), "{why}");
}

/// `gemba-agent enroll` in `data` with `args`: its exit status and stderr.
fn enroll(data: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(agent_bin())
        .arg("--data")
        .arg(data)
        .arg("enroll")
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_enrols_over_https_with_its_cloud_ca_and_uploads_through_it() {
    let p = pki();
    let app = https_app(&p).await;
    let admin = app.admin_token().await;
    let org = app.create_org(&admin, "Secure Works").await;
    for f in ["Define Operation", "Devices", "Record Training Set"] {
        app.subscribe(&admin, org, f).await;
    }
    let boss = app.signed_in("boss@tls.test", "org_admin", org).await;
    let bench = added(&app, &boss, "Bench 1").await;
    // The portal shows the command with the cloud's https:// address.
    assert!(
        bench.command.starts_with(&format!(
            "gemba-agent enroll --cloud https://127.0.0.1:{}",
            port(&app)
        )),
        "{}",
        bench.command
    );
    let cloud = format!("https://localhost:{}", port(&app));
    let data = tempfile::tempdir().unwrap();
    let creds = data.path().join("credentials.json");

    // Plain HTTP to a host that is not loopback: refused before anything is sent.
    let (ok, err) = enroll(
        data.path(),
        &[
            "--cloud",
            "http://gemba.invalid:8080",
            "--code",
            &bench.code,
        ],
    );
    assert!(!ok);
    assert!(
        err.contains("unencrypted") && err.contains("--insecure-http"),
        "{err}"
    );
    // Without the authority: the certificate is not trusted, and it says what to give.
    let (ok, err) = enroll(data.path(), &["--cloud", &cloud, "--code", &bench.code]);
    assert!(!ok);
    assert!(
        err.contains("not trusted") && err.contains("--cloud-ca"),
        "{err}"
    );
    // A file that is no certificate is refused as such.
    let (ok, err) = enroll(
        data.path(),
        &[
            "--cloud",
            &cloud,
            "--code",
            &bench.code,
            "--cloud-ca",
            p.key.to_str().unwrap(),
        ],
    );
    assert!(!ok);
    assert!(err.contains("--cloud-ca"), "{err}");
    assert!(!creds.exists());

    // With it: enrolled, and the credentials keep the authority.
    let (ok, err) = enroll(
        data.path(),
        &[
            "--cloud",
            &cloud,
            "--code",
            &bench.code,
            "--cloud-ca",
            p.ca_file().to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    let kept: serde_json::Value = serde_json::from_slice(&std::fs::read(&creds).unwrap()).unwrap();
    assert_eq!(kept["device"], bench.device.id);
    assert_eq!(kept["cloud_ca"], p.ca.as_str());

    // The running agent uploads a recording to the https:// link the cloud gives, with
    // the authority it kept.
    let task: Task = app
        .create_as(
            "organization/task/",
            &TaskCreate {
                task_detail: Some(
                    "Assemble sensor\nPick base:\nTake base;\nFasten screws:\nDrive;\n".into(),
                ),
                ..TaskCreate::default()
            },
            &boss,
        )
        .await;
    let _agent = Agent(
        Command::new(agent_bin())
            .arg("--data")
            .arg(data.path())
            .arg("run")
            .arg("--camera")
            .arg(format!("cam0={}", models_dir().join("demo.mp4").display()))
            .arg("--model")
            .arg(models_dir().join("default"))
            .args(["--loop", "--heartbeat", "1"])
            .env("RUST_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let details = format!("device/{}/device_details/", bench.device.id);
    until("the device online", 60, async || {
        app.get_as::<DeviceDetails>(&details, &boss)
            .await
            .device
            .online
    })
    .await;
    let video: Video = app
        .create_as(
            &format!("organization/task/videos/{}/record/", task.id),
            &RecordRequest {
                device: bench.device.id,
                camera: "cam0".into(),
                seconds: 5,
            },
            &boss,
        )
        .await;
    let path = format!("organization/task_record/{}/", video.id);
    let mut last = None;
    until("the recording uploaded", 120, async || {
        let v = app.get_as::<Video>(&path, &boss).await;
        let done = v.status != VideoStatus::Recording;
        last = Some(v);
        done
    })
    .await;
    let v = last.unwrap();
    assert_eq!(v.status, VideoStatus::Ready, "{v:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_that_cannot_be_used_stops_the_start_with_its_setting() {
    let p = pki();
    let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let other_key = p.dir.path().join("other-key.pem");
    std::fs::write(&other_key, other.signing_key.serialize_pem()).unwrap();
    let missing = p.dir.path().join("missing.pem");
    let cert = p.cert.to_str().unwrap();
    for (env, says) in [
        (
            vec![("GEMBA_TLS_CERT", cert)],
            "tls_cert is set but tls_key is not",
        ),
        (
            vec![("GEMBA_TLS_KEY", p.key.to_str().unwrap())],
            "tls_key is set but tls_cert is not",
        ),
        (
            vec![
                ("GEMBA_TLS_CERT", cert),
                ("GEMBA_TLS_KEY", missing.to_str().unwrap()),
            ],
            &*format!("reading tls_key {}", missing.display()),
        ),
        (
            vec![
                ("GEMBA_TLS_CERT", cert),
                ("GEMBA_TLS_KEY", other_key.to_str().unwrap()),
            ],
            &*format!("tls_key {} is not the key", other_key.display()),
        ),
    ] {
        let data = tempfile::tempdir().unwrap();
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_gemba-cloud"));
        c.arg("serve")
            .arg("--data")
            .arg(data.path())
            .args([
                "--http",
                &format!("127.0.0.1:{}", free_port()),
                "--mqtt",
                &format!("127.0.0.1:{}", free_port_pair()),
            ])
            .env("RUST_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        for (k, _) in std::env::vars() {
            if k.starts_with("GEMBA_") {
                c.env_remove(k);
            }
        }
        c.envs(env.iter().copied());
        let out = tokio::time::timeout(Duration::from_secs(60), c.output())
            .await
            .expect("the cloud stops at once")
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{env:?}: {err}");
        assert!(err.contains(says), "{env:?}: {err}");
    }
}
