//! The agent's link to the cloud over MQTT, as the device it was enrolled as.
//!
//! - Delivery of the outbox, at-least-once (QoS 1), every payload signed with the
//!   device's key. A cycle leaves the outbox when the cloud says it is stored
//!   (`cycles/ack`); one the broker took but the cloud never confirmed is sent again
//!   after [`Options::resend_after`]. After a lost connection the client starts afresh,
//!   after a back-off ([`crate::outbox::backoff_ms`]).
//! - Status: the latest [`StatusMessage`] is published retained on connecting and
//!   whenever it changes; the last will, signed too, says offline.
//! - Commands: `cmd` messages signed by the cloud with this device's key are handed to
//!   the caller; anything else is dropped and logged.
//!
//! The in-flight window (what was handed to the client, under which packet id, until
//! the broker's PUBACK) is plain state in `state.rs`; the `select!` loop of `eventloop.rs` only
//! owns the client, its event loop and the timers, and carries out what it answers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gemba_shared::mqtt::v1::{Channel, CommandMessage, RtcMessage, StatusMessage, topic};
use tokio::sync::{mpsc, watch};

use crate::outbox::{Outbox, backoff_ms};

mod eventloop;
mod state;

use eventloop::session;

/// Messages published and not yet acknowledged by the broker, at most.
const WINDOW: usize = 32;

/// Where to connect and who this device is.
#[derive(Debug, Clone)]
pub struct Link {
    pub host: String,
    pub port: u16,
    pub org: i64,
    pub device: i64,
    /// The key's id and the key (the credentials from enrolment).
    pub kid: String,
    pub key: Vec<u8>,
    /// TLS to the embedded broker (`mqtts://`): the pinned authority and the device's
    /// certificate (`gemba_shared::broker::tls`).
    pub tls: Option<rumqttc::TlsConfiguration>,
    /// The broker's prefix of this device's topics (`/tenants/d7/` under TLS, else
    /// empty). Topics kept in the outbox are without it, so a device enrolled again
    /// onto TLS still sends what it kept.
    pub prefix: String,
}

impl Link {
    /// The MQTT client id ([`gemba_shared::broker::client_id`]).
    pub fn client_id(&self) -> String {
        gemba_shared::broker::client_id(self.device, &self.key)
    }

    /// The broker username and password of this device.
    pub fn username(&self) -> String {
        gemba_shared::broker::username(self.device)
    }

    pub fn password(&self) -> String {
        gemba_shared::broker::password(&self.key)
    }

    /// The topic of `c` on the broker.
    fn topic(&self, c: Channel) -> String {
        self.on_broker(&topic(&self.org.to_string(), &self.device.to_string(), c))
    }

    /// A contract topic (as the outbox keeps it) where the broker has it.
    fn on_broker(&self, topic: &str) -> String {
        format!("{}{topic}", self.prefix)
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// A cycle the cloud has not confirmed this long after the broker took it is sent
    /// again.
    pub resend_after: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            resend_after: Duration::from_secs(20),
        }
    }
}

/// Where what the cloud asks goes.
#[derive(Debug, Clone)]
pub struct Inbox {
    pub commands: mpsc::Sender<CommandMessage>,
    /// Live view's offers and ends (`rtc`).
    pub rtc: mpsc::Sender<RtcMessage>,
    /// Whether the link is up (the broker took the connection).
    pub linked: watch::Sender<bool>,
}

/// Runs the link until `stop` turns true; what the cloud asks goes to `inbox`.
pub async fn run(
    link: Link,
    opts: Options,
    outbox: Arc<Mutex<Outbox>>,
    status: watch::Receiver<StatusMessage>,
    inbox: Inbox,
    mut stop: watch::Receiver<bool>,
) {
    let mut failures: u32 = 0;
    let mut status = status;
    while !*stop.borrow() {
        let r = session(
            &link,
            &opts,
            &outbox,
            &mut status,
            &inbox,
            &mut stop,
            &mut failures,
        )
        .await;
        match r {
            Ok(()) => return,
            Err(e) => {
                let _ = inbox.linked.send(false);
                failures = failures.saturating_add(1);
                let wait = backoff_ms(failures);
                tracing::warn!(error = %e, wait_ms = wait, "MQTT link interrupted");
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                    _ = stop.changed() => {}
                }
            }
        }
    }
}
