//! gemba-agent as a library: the parts the binary puts together (capture → inference →
//! cycles → durable MQTT sync), each testable alone. Built so far: the recorder (cycle engine →
//! outbox), the durable outbox and its delivery over MQTT.

pub mod enroll;
pub mod outbox;
pub mod recorder;
pub mod sync;
