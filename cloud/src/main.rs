//! `gemba-cloud`: serve, create an admin, print the example configuration.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use gemba_cloud::config::Settings;

#[derive(Parser)]
#[command(name = "gemba-cloud", version, about = "gemba cloud service")]
struct Cli {
    /// Configuration file (TOML); default: ./gemba.toml when present.
    #[arg(long, global = true, env = "GEMBA_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Default)]
struct Overrides {
    /// Data folder (SQLite database, objects, e-mail outbox).
    #[arg(long)]
    data: Option<PathBuf>,
    /// HTTP listen address, e.g. 127.0.0.1:8080.
    #[arg(long)]
    http: Option<String>,
    /// Embedded broker address, or an external broker URL (mqtt://host:1883).
    #[arg(long)]
    mqtt: Option<String>,
    /// PostgreSQL URL (postgres://…) instead of SQLite.
    #[arg(long)]
    database_url: Option<String>,
    /// The built portal folder (default web/dist).
    #[arg(long)]
    web_dir: Option<PathBuf>,
}

#[derive(clap::Args)]
struct DemoArgs {
    /// Also seed the organisation `demo` and start a demo agent replaying the demo
    /// footage with the default model (made by models/build.sh).
    #[arg(long)]
    demo: bool,
    /// The demo footage (its ground truth, with the operation, beside it).
    #[arg(long, default_value = "target/models/demo.mp4")]
    demo_footage: PathBuf,
    /// The demo model bundle.
    #[arg(long, default_value = "target/models/default")]
    demo_model: PathBuf,
    /// The gemba-agent binary (default: beside gemba-cloud).
    #[arg(long)]
    demo_agent: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service.
    Serve {
        #[command(flatten)]
        overrides: Overrides,
        #[command(flatten)]
        demo: DemoArgs,
    },
    /// Take jobs from the queue in the database: training runs and the messages of
    /// `generic/send_message_to_sqs/` (for scale: run `serve` with
    /// `train_in_process = false` and any number of these, on the same database and
    /// object store).
    Worker {
        #[command(flatten)]
        overrides: Overrides,
    },
    /// Administration.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Print the commented example configuration.
    DefaultConfig,
    /// Print the release key (the Ed25519 public key, base64) agent releases are signed
    /// for: `release_public_key`, else the data folder's signing key's, made when
    /// missing (`release-signing.key`).
    ReleaseKey {
        #[command(flatten)]
        overrides: Overrides,
    },
    /// Print the signature (base64) of an agent binary for its upload
    /// (`POST /api/binary_deployment/?…&signature=`).
    SignRelease {
        /// The target it was built for: x86_64 or aarch64.
        #[arg(long)]
        target: String,
        /// The release's version.
        #[arg(long)]
        version: String,
        /// The binary.
        file: PathBuf,
        /// The signing key (base64 PKCS#8 on one line); default: the data folder's
        /// `release-signing.key`, made when missing.
        #[arg(long)]
        key: Option<PathBuf>,
        #[command(flatten)]
        overrides: Overrides,
    },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Create a super admin (password from GEMBA_ADMIN_PASSWORD or --password).
    Create {
        #[arg(long)]
        email: String,
        #[arg(long, env = "GEMBA_ADMIN_PASSWORD", hide_env_values = true)]
        password: String,
        #[command(flatten)]
        overrides: Overrides,
    },
}

fn settings(file: Option<&std::path::Path>, o: &Overrides) -> anyhow::Result<Settings> {
    let mut s = Settings::load(file).context("reading the configuration")?;
    if let Some(d) = &o.data {
        s.data = d.clone();
    }
    if let Some(h) = &o.http {
        s.http = h
            .parse()
            .with_context(|| format!("--http {h:?} is not an address"))?;
    }
    if let Some(m) = &o.mqtt {
        s.mqtt = m.clone();
    }
    if let Some(u) = &o.database_url {
        s.database_url = Some(u.clone());
    }
    if let Some(w) = &o.web_dir {
        s.web_dir = w.clone();
    }
    Ok(s)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let logs = tracing_subscriber::fmt().with_env_filter(
        tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| "info,sqlx=warn,rumqttd=warn,tower_http=info".into()),
    );
    // What these print is read by scripts: their logs go to stderr.
    if matches!(
        cli.command,
        Command::ReleaseKey { .. } | Command::SignRelease { .. }
    ) {
        logs.with_writer(std::io::stderr).init();
    } else {
        logs.init();
    }
    match cli.command {
        Command::DefaultConfig => print!("{}", gemba_cloud::config::EXAMPLE),
        Command::ReleaseKey { overrides } => {
            let s = settings(cli.config.as_deref(), &overrides)?;
            println!("{}", gemba_cloud::release_key::public_key(&s)?);
        }
        Command::SignRelease {
            target,
            version,
            file,
            key,
            overrides,
        } => {
            use gemba_shared::release;
            anyhow::ensure!(
                release::TARGETS.contains(&target.as_str()),
                "--target {target:?}: one of {}",
                release::TARGETS.join(", ")
            );
            release::check_version(&version).map_err(|m| anyhow::anyhow!("--version: {m}"))?;
            let key = match key {
                Some(k) => gemba_cloud::release_key::signing_key_at(&k)?,
                None => {
                    let s = settings(cli.config.as_deref(), &overrides)?;
                    gemba_cloud::release_key::signing_key(&gemba_cloud::release_key::key_path(
                        &s.data,
                    ))?
                }
            };
            let (sha256, size) = gemba_cloud::release_key::digest(&file)?;
            println!("{}", key.sign(&target, &version, size, &sha256));
        }
        Command::Serve { overrides: o, demo } => {
            let s = settings(cli.config.as_deref(), &o)?;
            tracing::info!(settings = ?s, "starting");
            let listener = tokio::net::TcpListener::bind(s.http)
                .await
                .with_context(|| format!("binding {}", s.http))?;
            let state = gemba_cloud::build_state(s).await?;
            // The demo agent enrols over HTTP, so it starts beside the server; it dies
            // with the server.
            // The demo is seeded before the server answers (its user can sign in from
            // the first answer).
            let demo_agent = if demo.demo {
                let agent = match demo.demo_agent {
                    Some(a) => a,
                    None => std::env::current_exe()?.with_file_name("gemba-agent"),
                };
                let o = gemba_cloud::demo::Options {
                    footage: demo.demo_footage,
                    model: demo.demo_model,
                    agent,
                };
                match gemba_cloud::demo::prepare(&state, &o).await {
                    Ok(prepared) => {
                        let st = state.clone();
                        Some(tokio::spawn(async move {
                            match gemba_cloud::demo::start(&st, &o, prepared).await {
                                Ok(mut child) => {
                                    let status = child.wait().await;
                                    tracing::error!(?status, "the demo agent stopped");
                                }
                                Err(e) => demo_failed(&e),
                            }
                        }))
                    }
                    Err(e) => {
                        demo_failed(&e);
                        None
                    }
                }
            } else {
                None
            };
            gemba_cloud::launch(state, listener, stopped()).await?;
            if let Some(d) = demo_agent {
                d.abort();
            }
        }
        Command::Worker { overrides } => {
            let s = settings(cli.config.as_deref(), &overrides)?;
            let state = gemba_cloud::build_state(s).await?;
            let name = gemba_cloud::jobs::worker_name("worker");
            tracing::info!(%name, "worker waiting for jobs");
            state.jobs.work(state.clone(), name, stopped()).await?;
        }
        Command::Admin {
            command:
                AdminCommand::Create {
                    email,
                    password,
                    overrides,
                },
        } => {
            let mut s = settings(cli.config.as_deref(), &overrides)?;
            // Only the admin named here is created, not the first-start one.
            s.admin_email = None;
            s.admin_password = None;
            let state = gemba_cloud::build_state(s).await?;
            let id = gemba_cloud::create_admin(&state, &email, &password).await?;
            println!("created super admin {email} (id {id})");
        }
    }
    Ok(())
}

/// Ctrl-C or SIGTERM (a service manager's stop): the service ends gracefully, so the
/// demo agent, its child, is stopped with it.
async fn stopped() {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

fn demo_failed(e: &anyhow::Error) {
    tracing::error!(error = %format!("{e:#}"), "the demo could not start");
}
