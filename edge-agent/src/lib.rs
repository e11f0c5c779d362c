//! gemba-agent as a library: the parts the binary puts together (capture → inference →
//! cycles → durable MQTT sync), each testable alone. Built so far: the durable outbox and its
//! delivery over MQTT.

pub mod outbox;
pub mod sync;
