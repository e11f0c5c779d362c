//! gemba-cloud: the REST API, identity and tenancy, storage (SQLite or PostgreSQL),
//! the embedded MQTT broker and e-mail. `main.rs` only parses the command line;
//! [`launch`] runs the service on a listener, so tests run the real server on port 0.

pub mod assistant;
pub mod auth;
pub mod config;
pub mod db;
pub mod demo;
pub mod device_config;
pub mod events;
pub mod health;
pub mod http;
pub mod https;
pub mod jobs;
pub mod limits;
pub mod live;
pub mod mail;
pub mod media;
pub mod mqtt;
pub mod objects;
pub mod oidc;
pub mod onnx;
pub mod opcua;
pub mod pg_template;
pub mod privacy;
pub mod private;
pub mod push;
pub mod queue;
pub mod reconcile;
pub mod release_key;
pub mod releases;
pub mod rollout;
pub mod screenshots;
pub mod seed;
pub mod sop;
pub mod state;
pub mod tampering;
pub mod totp_seal;
pub mod training;
pub mod validation;

use std::future::Future;

use anyhow::Context;
use gemba_shared::Role;
use tokio::net::TcpListener;

use crate::auth::{Keys, Passwords, random_token};
use crate::config::Settings;
use crate::db::{Db, users};
use crate::mail::Mailer;
use crate::state::{AppState, Inner};

/// Opens storage, mail and keys: everything but the listeners.
pub async fn build_state(settings: Settings) -> anyhow::Result<AppState> {
    private::keep_private(&settings.data)?;
    let db = Db::open(settings.database_url.as_deref(), &settings.data).await?;
    let secret = match &settings.jwt_secret {
        Some(s) => s.0.clone(),
        None => load_or_create_key(&settings)?,
    };
    let keys = Keys::new(secret.as_bytes());
    let totp = totp_seal::open_for(&db, &settings).await?;
    let events = events::Events::new(secret.as_bytes());
    let relay_secret = {
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes());
        ring::hmac::sign(&key, b"gemba turn relay")
            .as_ref()
            .to_vec()
    };
    let passwords = Passwords::new(&settings.kdf)?;
    let mailer = Mailer::new(db.clone(), &settings)?;
    let mail_limits = limits::MailLimits::new(&settings.mail_limit);
    let sso = oidc::Providers::new(&settings.sso);
    let objects = objects::open(&settings)?;
    let jobs = jobs::Queue::open(&db).await?;
    let release_key = release_key::public_key(&settings)?;
    let settings_embedding_model = settings.embedding_model.clone();
    let state = AppState::new(Inner {
        db,
        settings,
        keys,
        totp,
        passwords,
        mail_limits,
        sso,
        mailer,
        mqtt: Default::default(),
        events,
        objects,
        uploads: Default::default(),
        jobs,
        relay: Default::default(),
        relay_secret,
        release_key,
        vapid: push::Vapid::derive(secret.as_bytes()),
        semantic: assistant::embed::Semantic::new(settings_embedding_model),
    });
    if let (Some(email), Some(password)) =
        (&state.settings.admin_email, &state.settings.admin_password)
        && users::by_email(&state.db, email).await?.is_none()
    {
        create_admin(&state, email, &password.0).await?;
        tracing::info!(%email, "created the first super admin");
    }
    Ok(state)
}

fn load_or_create_key(settings: &Settings) -> anyhow::Result<String> {
    let path = settings.data.join("jwt.key");
    if let Ok(k) = std::fs::read_to_string(&path)
        && k.trim().len() >= 32
    {
        return Ok(k.trim().to_string());
    }
    let k = random_token();
    // 0600: written under the creation mask `private::keep_private` set.
    std::fs::write(&path, &k).with_context(|| format!("writing {}", path.display()))?;
    Ok(k)
}

/// Creates a verified, approved super admin.
pub async fn create_admin(state: &AppState, email: &str, password: &str) -> anyhow::Result<i64> {
    gemba_shared::validate::email(email).map_err(|m| anyhow::anyhow!("{email:?}: {m}"))?;
    gemba_shared::validate::password(password)
        .map_err(|m| anyhow::anyhow!("admin password: {m}"))?;
    if users::by_email(&state.db, email).await?.is_some() {
        anyhow::bail!("a user with the e-mail address {email:?} already exists");
    }
    let hash = state.passwords.hash(password.to_string()).await?;
    let id = users::insert(
        &state.db,
        &users::NewUser {
            email,
            name: "Admin",
            lastname: "",
            password_hash: &hash,
            role: Some(Role::Admin),
            is_active: true,
            is_email_verified: true,
            is_approved: true,
            require_otp: state.settings.require_otp,
        },
    )
    .await?;
    Ok(id)
}

/// Runs the service on `listener` until `shutdown` resolves.
pub async fn launch(
    state: AppState,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    // Before anything starts: a certificate that cannot be used stops the start.
    let server_tls = https::server_config(&state.settings)?;
    let embedded = state.settings.embedded_mqtt();
    // The cloud's login: its own on the embedded broker, the configured one elsewhere.
    let tls = embedded.is_some() && state.settings.mqtt_tls;
    let s = &state.settings;
    if !tls && (s.mqtt_tls_cert.is_some() || s.mqtt_tls_key.is_some() || s.mqtt_tls_ca.is_some()) {
        anyhow::bail!(
            "mqtt_tls_cert, mqtt_tls_key and mqtt_tls_ca are for the embedded broker speaking \
             TLS (mqtt_tls = true)"
        );
    }
    let mut cloud_addr = None;
    let login = match embedded {
        Some(addr) => {
            let login = mqtt::Login::random();
            let pki = if tls {
                let mut pki = mqtt::Pki::open(&state.settings.data.join("mqtt-tls"))?;
                pki.serve_operator(&state.settings)?;
                Some(pki)
            } else {
                None
            };
            cloud_addr = Some(
                mqtt::start_embedded(addr, &state, &login, pki.as_ref().map(|p| p.files())).await?,
            );
            if let Some(pki) = pki {
                state.mqtt.use_pki(pki);
            }
            Some(login)
        }
        None => state
            .settings
            .mqtt_username
            .clone()
            .map(|username| mqtt::Login {
                username,
                password: state
                    .settings
                    .mqtt_password
                    .as_ref()
                    .map(|p| p.0.clone())
                    .unwrap_or_default(),
            }),
    };
    let (host, port) = match cloud_addr {
        Some(a) => (a.ip().to_string(), a.port()),
        None => mqtt::broker_address(&state.settings.mqtt)?,
    };
    let group = &state.settings.mqtt_group;
    if group.is_empty() || group.contains(['/', '+', '#']) {
        anyhow::bail!("mqtt_group {group:?}: name a group without '/', '+' or '#'");
    }
    // Replicas share an external broker's messages; the embedded one serves one cloud.
    mqtt::spawn_link(state.clone(), host, port, login, embedded.is_none());
    if state.settings.train_in_process {
        let s = state.clone();
        tokio::spawn(async move {
            let name = jobs::worker_name("serve");
            if let Err(e) = s.jobs.work(s.clone(), name, std::future::pending()).await {
                tracing::error!(error = %e, "the in-process training worker stopped");
            }
        });
    }
    if state.settings.train_in_process
        && let Err(e) = validation::resume(&state).await
    {
        tracing::warn!(
            error = format!("{e:#}"),
            "unfinished validation runs stay queued"
        );
    }
    tokio::spawn(media::clips::sweep_every_hour(state.clone()));
    // A relay that cannot start (its port taken) leaves live view to direct paths.
    let _relay = match live::start_relay(&state, listener.local_addr()?).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(
                error = format!("{e:#}"),
                "live view's TURN relay did not start: viewers that cannot reach a device \
                 directly will not see it"
            );
            None
        }
    };
    tokio::spawn(screenshots::tick_forever(state.clone()));
    tokio::spawn(screenshots::sweep_every_hour(state.clone()));
    // The assistant's embedder: loaded, and the passages stored without its embeddings
    // embedded, in the background (retrieval is full-text for them until then).
    tokio::spawn(assistant::embed::backfill(state.clone()));
    // The peer's address reaches handlers (the mail limits count per client).
    let app = http::app(state).into_make_service_with_connect_info::<std::net::SocketAddr>();
    let addr = listener.local_addr()?;
    match server_tls {
        Some(tls) => {
            tracing::info!(%addr, "gemba-cloud listening (HTTPS)");
            https::serve(listener, tls, app, shutdown).await?;
        }
        None => {
            tracing::info!(%addr, "gemba-cloud listening");
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await?;
        }
    }
    Ok(())
}
