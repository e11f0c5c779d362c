//! `gemba-agent`: the edge agent. This is the skeleton the "Edge agent" issue fills
//! (capture → inference → cycles → durable MQTT sync); today it only identifies itself.

use clap::Parser;

#[derive(Parser)]
#[command(name = "gemba-agent", version, about = "gemba edge agent (skeleton)")]
struct Cli {}

fn main() {
    let _ = Cli::parse();
    let roles: Vec<&str> = gemba_shared::Role::ALL.iter().map(|r| r.as_str()).collect();
    eprintln!(
        "gemba-agent {}: capture and sync are not built yet; it shares {} roles with the cloud.",
        env!("CARGO_PKG_VERSION"),
        roles.len()
    );
}
