//! `gemba-agent`: the edge agent's binary. The parts live in the library (recorder,
//! outbox, MQTT delivery); capture, inference and the command line that joins them
//! are still to come (issue "Edge agent"), so today it only identifies itself.

use clap::Parser;

#[derive(Parser)]
#[command(name = "gemba-agent", version, about = "gemba edge agent (skeleton)")]
struct Cli {}

fn main() {
    let _ = Cli::parse();
    let roles: Vec<&str> = gemba_shared::Role::ALL.iter().map(|r| r.as_str()).collect();
    eprintln!(
        "gemba-agent {}: capture and inference are not built yet; it shares {} roles with the cloud.",
        env!("CARGO_PKG_VERSION"),
        roles.len()
    );
}
