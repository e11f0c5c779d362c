//! A network camera for the tests: GStreamer's RTSP server (Debian's libgstrtspserver,
//! through the `gstreamer-rtsp-server` crate) serving GStreamer's test source as H.264
//! at `rtsp://127.0.0.1:{port}/{path}`, on a GLib main loop of its own thread. Stopped,
//! it closes its clients and its port, as a camera unplugged does.

use std::thread::JoinHandle;

use gstreamer as gst;
use gstreamer::glib;
use gstreamer_rtsp_server as rtsp;
use gstreamer_rtsp_server::prelude::*;

pub struct RtspCamera {
    main_loop: glib::MainLoop,
    thread: Option<JoinHandle<()>>,
    pub url: String,
}

impl RtspCamera {
    /// Serves a 320 × 240, 15 fps moving ball on `port` at `path`.
    pub fn start(port: u16, path: &str) -> RtspCamera {
        RtspCamera::start_sized(port, path, 320, 240)
    }

    /// [`RtspCamera::start`] at `width × height`.
    pub fn start_sized(port: u16, path: &str, width: u32, height: u32) -> RtspCamera {
        RtspCamera::start_pattern(port, path, width, height, "ball")
    }

    /// [`RtspCamera::start_sized`] showing videotestsrc's `pattern` (`colors`: a still
    /// picture, a camera whose picture never changes; not `smpte`, whose corner is
    /// snow).
    pub fn start_pattern(
        port: u16,
        path: &str,
        width: u32,
        height: u32,
        pattern: &str,
    ) -> RtspCamera {
        gst::init().unwrap();
        let ctx = glib::MainContext::new();
        let main_loop = glib::MainLoop::new(Some(&ctx), false);
        let (ready_tx, ready) = std::sync::mpsc::channel();
        let (l, mount, pattern) = (main_loop.clone(), path.to_string(), pattern.to_string());
        let thread = std::thread::spawn(move || {
            ctx.with_thread_default(|| {
                let server = rtsp::RTSPServer::new();
                server.set_address("127.0.0.1");
                server.set_service(&port.to_string());
                let factory = rtsp::RTSPMediaFactory::new();
                factory.set_launch(&format!(
                    "( videotestsrc is-live=true pattern={pattern} \
                     ! video/x-raw,width={width},height={height},framerate=15/1 \
                     ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 \
                     ! video/x-h264,profile=constrained-baseline \
                     ! rtph264pay name=pay0 pt=96 config-interval=-1 )"
                ));
                factory.set_shared(true);
                server
                    .mount_points()
                    .unwrap()
                    .add_factory(&format!("/{mount}"), factory);
                let source = server.attach(Some(&ctx)).unwrap();
                ready_tx.send(()).unwrap();
                l.run();
                // Unplugged: its clients cut off, its port closed.
                server.client_filter(Some(&mut |_, _| rtsp::RTSPFilterResult::Remove));
                if let Some(s) = ctx.find_source_by_id(&source) {
                    s.destroy();
                }
                while ctx.iteration(false) {}
            })
            .unwrap();
        });
        ready.recv().unwrap();
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        RtspCamera {
            main_loop,
            thread: Some(thread),
            url: format!("rtsp://127.0.0.1:{port}/{path}"),
        }
    }
}

impl Drop for RtspCamera {
    fn drop(&mut self) {
        self.main_loop.quit();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
