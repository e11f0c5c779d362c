//! gemba-agent as a library: the parts the binary puts together (capture → inference →
//! cycles → durable MQTT sync), each testable alone.

pub mod agent;
pub mod cameras;
pub mod capture;
pub mod clock;
pub mod enroll;
pub mod eval;
pub mod http;
pub mod infer;
pub mod live;
pub mod opcua;
pub mod outbox;
pub mod schedules;
pub mod sync;
pub mod update;
