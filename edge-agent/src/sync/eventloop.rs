//! One connection of the link: the MQTT client, its event loop and the timers, in one
//! `select!` loop. What is in flight is kept by [`Window`] (`state.rs`); this only
//! carries out what it answers, and hands what the cloud sends to the outbox (its
//! acknowledgements) or the caller (its commands).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gemba_shared::mqtt::v1::{
    self, Channel, CommandMessage, CyclesAck, RtcMessage, StatusMessage, sign, sign_json, verify,
};
use rumqttc::{AsyncClient, Event, LastWill, MqttOptions, Outgoing, Packet, QoS};
use tokio::sync::watch;

use super::state::Window;
use super::{Inbox, Link, Options, WINDOW};
use crate::clock::now_ms;
use crate::outbox::Outbox;

/// One connection. `Ok` when stopped, `Err` when the connection failed.
#[allow(clippy::too_many_arguments)]
pub(super) async fn session(
    link: &Link,
    opts: &Options,
    outbox: &Arc<Mutex<Outbox>>,
    status: &mut watch::Receiver<StatusMessage>,
    inbox: &Inbox,
    stop: &mut watch::Receiver<bool>,
    failures: &mut u32,
) -> anyhow::Result<()> {
    let mut mo = MqttOptions::new(link.client_id(), &link.host, link.port);
    mo.set_keep_alive(Duration::from_secs(10));
    mo.set_clean_session(true);
    // The broker takes only enrolled devices, each as itself (gemba_shared::broker).
    mo.set_credentials(link.username(), link.password());
    mo.set_max_packet_size(v1::MAX_PAYLOAD_BYTES + 1024, v1::MAX_PAYLOAD_BYTES + 1024);
    if let Some(tls) = &link.tls {
        mo.set_transport(rumqttc::Transport::tls_with_config(tls.clone()));
    }
    // The cloud takes an offline status only when it is later than the last offline one
    // it took, an online one only when later than any (a replay changes nothing): the
    // will carries the time this connection begins (before its heartbeats, after any
    // offline status sent before), and every status sent carries the time it is sent.
    let will = StatusMessage {
        online: false,
        ts_ms: fresh(&status.borrow()),
        ..status.borrow().clone()
    };
    mo.set_last_will(LastWill::new(
        link.topic(Channel::Status),
        sign(&link.key, &link.kid, &will),
        QoS::AtLeastOnce,
        true,
    ));
    let (client, mut events) = AsyncClient::new(mo, WINDOW * 2);
    let mut connected = false;
    let mut window = Window::new(WINDOW, opts.resend_after);
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    loop {
        tokio::select! {
            _ = stop.changed() => {
                if *stop.borrow() {
                    let offline = StatusMessage {
                        online: false,
                        ts_ms: fresh(&status.borrow()),
                        ..status.borrow().clone()
                    };
                    let _ = client
                        .publish(link.topic(Channel::Status), QoS::AtLeastOnce, true,
                            sign(&link.key, &link.kid, &offline))
                        .await;
                    let _ = client.disconnect().await;
                    // Let the event loop send both.
                    let _ = tokio::time::timeout(Duration::from_millis(500), async {
                        while events.poll().await.is_ok() {}
                    })
                    .await;
                    return Ok(());
                }
            }
            changed = status.changed(), if connected => {
                if changed.is_ok() {
                    let s = status.borrow_and_update().clone();
                    window.published_status();
                    client.publish(link.topic(Channel::Status), QoS::AtLeastOnce, true,
                        sign(&link.key, &link.kid, &s)).await?;
                }
            }
            _ = tick.tick(), if connected => {
                if window.room() == 0 {
                    continue;
                }
                let (n, resend_before) = window.wanted(now_ms());
                let msgs = outbox.lock().expect("outbox lock").next(n, resend_before)?;
                let fresh = window.pick(msgs);
                if fresh.is_empty() {
                    continue;
                }
                let ids: Vec<i64> = fresh.iter().map(|m| m.id).collect();
                outbox.lock().expect("outbox lock").attempted(&ids)?;
                for m in fresh {
                    let payload = match sign_json(&link.key, &link.kid, &m.payload) {
                        Ok(p) => p,
                        Err(e) => {
                            // Never sendable: dropping it is the only way forward.
                            tracing::error!(id = m.id, error = %e, "an outbox message is not JSON; dropped");
                            outbox.lock().expect("outbox lock").ack(m.id)?;
                            continue;
                        }
                    };
                    client.publish(link.on_broker(&m.topic), QoS::AtLeastOnce, false, payload).await?;
                    window.published(m.id);
                }
            }
            ev = events.poll() => match ev? {
                Event::Incoming(Packet::ConnAck(_)) => {
                    connected = true;
                    let _ = inbox.linked.send(true);
                    *failures = 0;
                    client.subscribe(link.topic(Channel::CyclesAck), QoS::AtLeastOnce).await?;
                    client.subscribe(link.topic(Channel::Cmd), QoS::AtLeastOnce).await?;
                    client.subscribe(link.topic(Channel::Rtc), QoS::AtLeastOnce).await?;
                    let s = status.borrow_and_update().clone();
                    let s = StatusMessage { online: true, ts_ms: fresh(&s), ..s };
                    window.published_status();
                    client.publish(link.topic(Channel::Status), QoS::AtLeastOnce, true,
                        sign(&link.key, &link.kid, &s)).await?;
                    tick.reset_immediately();
                }
                Event::Outgoing(Outgoing::Publish(pkid)) => window.sent(pkid),
                Event::Incoming(Packet::PubAck(ack)) => {
                    if let Some(id) = window.acked(ack.pkid) {
                        outbox.lock().expect("outbox lock").delivered(id, now_ms())?;
                        tick.reset_immediately();
                    }
                }
                Event::Incoming(Packet::Publish(p)) => {
                    incoming(link, outbox, inbox, &p.topic, &p.payload).await?;
                }
                _ => {}
            },
        }
    }
}

/// The time for a status sent now in place of `s`: the clock's, but later than `s`'s
/// (the latest status, which this connection or the one before may have sent).
fn fresh(s: &StatusMessage) -> i64 {
    now_ms().max(s.ts_ms + 1)
}

/// A message from the cloud: checked, then acted on.
async fn incoming(
    link: &Link,
    outbox: &Arc<Mutex<Outbox>>,
    inbox: &Inbox,
    t: &str,
    payload: &[u8],
) -> anyhow::Result<()> {
    if t == link.topic(Channel::CyclesAck) {
        match verify::<CyclesAck>(&link.key, payload) {
            Ok(ack) => {
                if !ack.refused.is_empty() {
                    tracing::error!(ids = ?ack.refused, "the cloud refused cycles (task not the organisation's)");
                }
                // Their clips may go now (the cycles are stored), to the URL given.
                let gone = outbox.lock().expect("outbox lock").acknowledged(
                    &ack.ids,
                    &ack.refused,
                    ack.clip_url.as_deref(),
                    now_ms(),
                )?;
                for p in gone {
                    let _ = std::fs::remove_file(p);
                }
            }
            Err(e) => tracing::warn!(error = %e, "an acknowledgement not from the cloud; ignored"),
        }
    } else if t == link.topic(Channel::Cmd) {
        match verify::<CommandMessage>(&link.key, payload) {
            Ok(c) => {
                let _ = inbox.commands.send(c).await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "a command refused (unsigned by the cloud, or unreadable); ignored")
            }
        }
    } else if t == link.topic(Channel::Rtc) {
        match verify::<RtcMessage>(&link.key, payload) {
            Ok(m) => {
                let _ = inbox.rtc.send(m).await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "a live view message refused (unsigned by the cloud, or unreadable); ignored")
            }
        }
    }
    Ok(())
}
