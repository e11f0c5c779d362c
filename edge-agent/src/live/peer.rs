//! One viewer's WebRTC peer connection (webrtc-rs): the browser's offer answered with
//! one H.264 video track and every candidate (no trickling), then the camera's feed
//! written to it until the viewer leaves, the connection fails or the camera stops.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use gemba_shared::mqtt::v1::IceServer;
use rtc::media::Sample;
use rtc::rtp_transceiver::rtp_sender::{
    RTCRtpCodec, RTCRtpCodecParameters, RTCRtpCodingParameters, RTCRtpEncodingParameters,
    RtpCodecKind,
};
use tokio::sync::{broadcast, watch};
use webrtc::media_stream::MediaStreamTrack;
use webrtc::media_stream::Track;
use webrtc::media_stream::track_local::TrackLocal;
use webrtc::media_stream::track_local::static_sample::TrackLocalStaticSample;
use webrtc::peer_connection::{
    MediaEngine, PeerConnection, PeerConnectionBuilder, PeerConnectionEventHandler,
    RTCConfigurationBuilder, RTCIceGatheringState, RTCIceServer, RTCPeerConnectionState,
    RTCSessionDescription, Registry, register_default_interceptors,
};
use webrtc::rtp_transceiver::RtpSender;

use crate::capture::live::{Encoded, Viewer};

/// How long gathering candidates may take (a relay's allocation included).
const GATHER: Duration = Duration::from_secs(10);
/// How long the viewer has to connect after the answer.
const CONNECT: Duration = Duration::from_secs(30);

/// Why a stream ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// The viewer left (the cloud said so, or the agent stops).
    Closed,
    /// Something the viewer is told.
    Said(String),
}

struct Events {
    gathered: watch::Sender<bool>,
    state: watch::Sender<RTCPeerConnectionState>,
}

#[async_trait::async_trait]
impl PeerConnectionEventHandler for Events {
    async fn on_ice_gathering_state_change(&self, state: RTCIceGatheringState) {
        if state == RTCIceGatheringState::Complete {
            let _ = self.gathered.send(true);
        }
    }

    async fn on_connection_state_change(&self, state: RTCPeerConnectionState) {
        let _ = self.state.send(state);
    }
}

/// The H.264 the agent sends: constrained baseline, packetization mode 1, which every
/// browser receives.
fn h264() -> RTCRtpCodec {
    RTCRtpCodec {
        mime_type: "video/H264".into(),
        clock_rate: 90_000,
        channels: 0,
        sdp_fmtp_line: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"
            .into(),
        rtcp_feedback: vec![],
    }
}

/// A peer connection answering one offer.
pub struct Peer {
    pc: Arc<dyn PeerConnection>,
    track: Arc<TrackLocalStaticSample>,
    sender: Arc<dyn RtpSender>,
    ssrc: u32,
    state: watch::Receiver<RTCPeerConnectionState>,
}

impl Peer {
    /// Answers `offer` (a browser's, all candidates in it): the answer's description,
    /// with all of this side's candidates.
    pub async fn answer(offer: &str, ice: &[IceServer]) -> anyhow::Result<(Peer, String)> {
        let mut media = MediaEngine::default();
        media
            .register_codec(
                RTCRtpCodecParameters {
                    rtp_codec: h264(),
                    payload_type: 102,
                },
                RtpCodecKind::Video,
            )
            .map_err(|e| anyhow!("{e}"))?;
        let registry = register_default_interceptors(Registry::new(), &mut media)
            .map_err(|e| anyhow!("{e}"))?;
        let config = RTCConfigurationBuilder::new()
            .with_ice_servers(
                ice.iter()
                    .map(|s| RTCIceServer {
                        urls: s.urls.clone(),
                        username: s.username.clone(),
                        credential: s.credential.clone(),
                    })
                    .collect(),
            )
            .build();
        let (gathered, mut gathered_rx) = watch::channel(false);
        let (state_tx, state) = watch::channel(RTCPeerConnectionState::New);
        let pc = PeerConnectionBuilder::new()
            .with_configuration(config)
            .with_media_engine(media)
            .with_interceptor_registry(registry)
            .with_handler(Arc::new(Events {
                gathered,
                state: state_tx,
            }))
            .with_udp_addrs(vec!["0.0.0.0:0".to_string()])
            .build()
            .await
            .map_err(|e| anyhow!("{e}"))
            .context("making the peer connection")?;
        let pc: Arc<dyn PeerConnection> = Arc::new(pc);
        let ssrc = uuid::Uuid::new_v4().as_u128() as u32;
        let codec = h264();
        let track = Arc::new(
            TrackLocalStaticSample::new(
                Instant::now(),
                MediaStreamTrack::new(
                    "gemba".into(),
                    "camera".into(),
                    "camera".into(),
                    RtpCodecKind::Video,
                    vec![RTCRtpEncodingParameters {
                        rtp_coding_parameters: RTCRtpCodingParameters {
                            ssrc: Some(ssrc),
                            ..Default::default()
                        },
                        codec,
                        ..Default::default()
                    }],
                ),
            )
            .map_err(|e| anyhow!("{e}"))?,
        );
        let sender = pc
            .add_track(track.clone() as Arc<dyn TrackLocal>)
            .await
            .map_err(|e| anyhow!("{e}"))?;
        let peer = Peer {
            pc,
            track,
            sender,
            ssrc,
            state,
        };
        let answered = async {
            let offer = RTCSessionDescription::offer(offer.to_string())
                .map_err(|e| anyhow!("the viewer's offer: {e}"))?;
            peer.pc
                .set_remote_description(offer)
                .await
                .map_err(|e| anyhow!("the viewer's offer: {e}"))?;
            let answer = peer
                .pc
                .create_answer(None)
                .await
                .map_err(|e| anyhow!("answering the viewer's offer: {e}"))?;
            peer.pc
                .set_local_description(answer)
                .await
                .map_err(|e| anyhow!("{e}"))?;
            let _ = tokio::time::timeout(GATHER, gathered_rx.wait_for(|g| *g)).await;
            let local = peer
                .pc
                .local_description()
                .await
                .ok_or_else(|| anyhow!("no answer was made"))?;
            anyhow::Ok(local.sdp)
        }
        .await;
        match answered {
            Ok(sdp) => Ok((peer, sdp)),
            Err(e) => {
                let _ = peer.pc.close().await;
                Err(e)
            }
        }
    }

    /// Streams `viewer`'s frames until the viewer leaves (`close` turns true), the
    /// connection fails or the feed ends; then closes the connection.
    pub async fn stream(mut self, mut viewer: Viewer, mut close: watch::Receiver<bool>) -> End {
        let end = self.run(&mut viewer, &mut close).await;
        let _ = self.pc.close().await;
        end
    }

    async fn run(&mut self, viewer: &mut Viewer, close: &mut watch::Receiver<bool>) -> End {
        // Connected first: frames written before would be lost.
        let connected = tokio::time::timeout(CONNECT, async {
            loop {
                match *self.state.borrow_and_update() {
                    RTCPeerConnectionState::Connected => return Ok(()),
                    RTCPeerConnectionState::Failed | RTCPeerConnectionState::Closed => {
                        return Err(End::Said("the viewer could not be reached".into()));
                    }
                    _ => {}
                }
                tokio::select! {
                    r = self.state.changed() => if r.is_err() {
                        return Err(End::Closed);
                    },
                    _ = close.changed() => return Err(End::Closed),
                }
            }
        })
        .await;
        match connected {
            Ok(Ok(())) => {}
            Ok(Err(end)) => return end,
            Err(_) => return End::Said("the viewer did not connect in time".into()),
        }
        let pt = match self.payload_type().await {
            Ok(pt) => pt,
            Err(e) => return End::Said(format!("{e:#}")),
        };
        // The track's SSRC as the connection bound it.
        if let Some(s) = self.track.ssrcs().await.first() {
            self.ssrc = *s;
        }
        tracing::debug!(
            payload_type = pt,
            ssrc = self.ssrc,
            "the viewer is connected"
        );
        viewer.want_key();
        let mut started = false;
        let mut check = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                f = viewer.frames.recv() => match f {
                    Ok(e) => {
                        if !started && !e.key {
                            continue;
                        }
                        if !started {
                            tracing::debug!(bytes = e.data.len(), "the first frame to the viewer");
                        }
                        started = true;
                        if let Err(e) = self.write(pt, &e).await {
                            return End::Said(format!("sending video failed: {e:#}"));
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Fell behind: wait for a key frame rather than show a broken one.
                        started = false;
                        viewer.want_key();
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        return End::Said("the camera stopped".into());
                    }
                },
                r = self.state.changed() => {
                    if r.is_err() {
                        return End::Closed;
                    }
                    let s = *self.state.borrow_and_update();
                    if matches!(s, RTCPeerConnectionState::Failed | RTCPeerConnectionState::Closed) {
                        return End::Said(format!("the connection to the viewer {s}"));
                    }
                }
                _ = close.changed() => return End::Closed,
                _ = check.tick() => {
                    if let Some(why) = viewer.failed() {
                        return End::Said(why);
                    }
                }
            }
        }
    }

    async fn payload_type(&self) -> anyhow::Result<u8> {
        let params = self
            .sender
            .get_parameters()
            .await
            .map_err(|e| anyhow!("{e}"))?;
        match params.rtp_parameters.codecs.first() {
            Some(c) => Ok(c.payload_type),
            None => bail!("the viewer accepts no H.264 this device can send"),
        }
    }

    async fn write(&self, pt: u8, e: &Encoded) -> anyhow::Result<()> {
        self.track
            .sample_writer(self.ssrc, pt)
            .write_sample(&Sample {
                data: e.data.clone(),
                duration: e.duration,
                ..Sample::new(Instant::now())
            })
            .await
            .map_err(|e| anyhow!("{e}"))
    }
}
