//! The agent's one clock: the wall clock in unix milliseconds. Cycles, the outbox, the
//! status and the health back-off all read time here, so that they agree.

/// Now, in milliseconds since the unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
