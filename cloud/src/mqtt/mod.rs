//! MQTT: the embedded broker (rumqttd), started by `gemba-cloud serve` unless an
//! external broker URL is configured, and the cloud's own client link to whichever
//! broker is in use ([`Link`]): it ingests what devices send and sends them commands.
//! The topics are `gemba/v1/{org}/{device}/{channel}` (`gemba_shared::mqtt::v1`), with
//! numeric organisation and device ids.
//!
//! By job: `broker` starts the embedded broker; `link` keeps the cloud's
//! connections up, subscribes and sends commands; `ingest` reads, verifies and stores
//! what devices send; `ack` says, as plain logic, what a stored batch
//! acknowledges to each device; `access` says who may connect to the embedded broker,
//! `dynsec` keeps an external Mosquitto's logins and topic access in step, `pki` makes
//! the embedded broker's TLS certificates (`mqtt_tls`).

mod access;
mod ack;
mod broker;
mod dynsec;
mod ingest;
mod link;
mod pki;

pub use access::Login;
pub use broker::{broker_address, config as broker_config, connects, start_embedded};
pub use link::{COMMAND_VALID_MS, KEY_TTL, Link, Stats, new_command_id, spawn_link};
pub use pki::Pki;
