//! `gemba-agent`: the edge agent's binary. The parts live in the library (enrolment,
//! recorder, outbox, MQTT link); capture and inference are still to come (issue "Edge
//! agent"), so today the binary enrols the device and reports what it holds.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "gemba-agent", version, about = "gemba edge agent")]
struct Cli {
    /// The agent's data folder (credentials, outbox).
    #[arg(
        long,
        env = "GEMBA_AGENT_DATA",
        default_value = "agent-data",
        global = true
    )]
    data: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Exchanges the one-time code the portal showed for this device's credentials.
    Enroll {
        /// The cloud's address, e.g. http://gemba.local:8080.
        #[arg(long)]
        cloud: String,
        /// The code, e.g. ABCD-EFGH-JKMN.
        #[arg(long)]
        code: String,
    },
    /// Shows which device this agent is enrolled as.
    Whoami,
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run(Cli::parse()).await {
        // One line a person can act on, with its causes; no backtrace.
        eprintln!("gemba-agent: {e:#}");
        std::process::exit(1);
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let creds = cli.data.join("credentials.json");
    match cli.command {
        Command::Enroll { cloud, code } => {
            let c = gemba_agent::enroll::enroll(&cloud, &code).await?;
            gemba_agent::enroll::save(&creds, &c)?;
            println!(
                "Enrolled as device {} ({}) of organisation {}; broker {}. Credentials in {}.",
                c.device,
                c.display_name,
                c.organization,
                c.mqtt,
                creds.display()
            );
        }
        Command::Whoami => {
            let c = gemba_agent::enroll::load(&creds)?;
            println!(
                "device {} ({}) of organisation {}, key {}, broker {}",
                c.device, c.display_name, c.organization, c.credential_id, c.mqtt
            );
        }
    }
    Ok(())
}
