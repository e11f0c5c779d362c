//! The user a queued message's job acts as: its sender, with the role the sending call
//! acted as (a service token's role may be below its account's), while the account is
//! still active and, unless a super admin, still linked to the message's organisation.
//! A sender gone, deactivated or unlinked ends the job failed: nobody's rights outlive
//! them in the queue.

use anyhow::{Context, bail};
use gemba_shared::Role;

use crate::db::queue::MessageRow;
use crate::db::users;
use crate::http::extract::AuthUser;
use crate::state::AppState;

/// The session name of a job's user (no sign-in is behind it).
pub const SESSION_PREFIX: &str = "queue:";

/// The sender of message `m`, as the user its job acts as.
pub async fn of(state: &AppState, m: &MessageRow) -> anyhow::Result<AuthUser> {
    let id = m
        .created_by
        .context("the user who sent the message is gone")?;
    let user = users::by_id(&state.db, id)
        .await?
        .context("the user who sent the message is gone")?;
    if !user.is_active {
        bail!("the user who sent the message is no longer active");
    }
    let role = m
        .sender_role
        .as_deref()
        .and_then(Role::parse)
        .context("the message does not say the role it was sent as")?;
    if role == Role::Admin && user.role() != Some(Role::Admin) {
        bail!("the user who sent the message is no longer a super admin");
    }
    let org = m.organization_id;
    if role != Role::Admin && !users::is_member(&state.db, id, org).await? {
        bail!("the user who sent the message is no longer in the organisation");
    }
    Ok(AuthUser {
        user,
        role,
        session: format!("{SESSION_PREFIX}{}", m.id),
        org: Some(org),
    })
}
