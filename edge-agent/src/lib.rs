//! gemba-agent as a library: the parts the binary puts together (capture → inference →
//! cycles → durable MQTT sync), each testable alone.

pub mod agent;
pub mod camera;
pub mod capture;
pub mod clock;
pub mod drift;
pub mod enroll;
pub mod eval;
pub mod health;
pub mod infer;
pub mod outbox;
pub mod recorder;
pub mod sync;
