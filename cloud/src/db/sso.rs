//! Single sign-on identities: which user an OpenID provider's subject is.
//!
//! Invariants:
//! - an identity (provider, subject) belongs to one user, and a user has at most one
//!   identity per provider (primary key and a unique index);
//! - an account made through single sign-on is written with its identity in one
//!   transaction, so there is never an SSO account without its link, nor a link to a
//!   user that was not made.

use super::{Db, now_ms};
use crate::http::error::is_unique_violation;

/// An identity as the provider vouched for it.
#[derive(Debug, Clone)]
pub struct Identity<'a> {
    /// The configured provider (`azure`, `google`).
    pub provider: &'a str,
    pub subject: &'a str,
    pub issuer: &'a str,
    /// The address the provider verified.
    pub email: &'a str,
}

/// A new account awaiting approval, made by a provider's sign-up.
pub struct PendingUser<'a> {
    pub email: &'a str,
    pub name: &'a str,
    pub lastname: &'a str,
    pub require_otp: bool,
}

/// What [`link`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linked {
    Yes,
    /// The user already has another identity at this provider.
    OtherIdentity,
}

/// The user an identity belongs to.
pub async fn user_for(db: &Db, provider: &str, subject: &str) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT user_id FROM sso_identities WHERE provider = $1 AND subject = $2")
        .bind(provider)
        .bind(subject)
        .fetch_optional(&db.pool)
        .await
}

/// The row linking identity `id` to `user`, made at `now`.
async fn insert_identity<'c>(
    e: impl sqlx::Executor<'c, Database = sqlx::Any>,
    id: &Identity<'_>,
    user: i64,
    now: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO sso_identities (provider, subject, user_id, issuer, email, created_at, \
         last_used_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
    )
    .bind(id.provider)
    .bind(id.subject)
    .bind(user)
    .bind(id.issuer)
    .bind(id.email.trim().to_lowercase())
    .bind(now)
    .execute(e)
    .await?;
    Ok(())
}

/// Links `id` to `user` (the provider verified the user's address).
pub async fn link(db: &Db, id: &Identity<'_>, user: i64) -> sqlx::Result<Linked> {
    match insert_identity(&db.pool, id, user, now_ms()).await {
        Ok(_) => Ok(Linked::Yes),
        Err(e) if is_unique_violation(&e) => Ok(Linked::OtherIdentity),
        Err(e) => Err(e),
    }
}

/// Notes a sign-in with the identity.
pub async fn touch(db: &Db, provider: &str, subject: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE sso_identities SET last_used_at = $1 WHERE provider = $2 AND subject = $3")
        .bind(now_ms())
        .bind(provider)
        .bind(subject)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Makes an account awaiting approval (its address verified by the provider, no
/// password: `password_hash` holds a value no password matches) with its identity, in
/// one transaction. `Err` with a unique violation when the address or the identity is
/// taken meanwhile.
pub async fn create_pending(db: &Db, u: &PendingUser<'_>, id: &Identity<'_>) -> sqlx::Result<i64> {
    let now = now_ms();
    let mut tx = db.begin_write().await?;
    let user: i64 = sqlx::query_scalar(
        "INSERT INTO users (email, name, lastname, password_hash, role_id, is_active, \
         is_email_verified, is_approved, require_otp, created_at) \
         VALUES ($1, $2, $3, $4, NULL, 0, 1, 0, $5, $6) RETURNING id",
    )
    .bind(u.email.trim().to_lowercase())
    .bind(u.name.trim())
    .bind(u.lastname.trim())
    .bind(NO_PASSWORD)
    .bind(u.require_otp as i64)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    insert_identity(&mut *tx, id, user, now).await?;
    tx.commit().await?;
    Ok(user)
}

/// The password hash of an account made through single sign-on: not a PHC string, so
/// no password verifies against it (a password can be set later by a reset).
pub const NO_PASSWORD: &str = "!sso";
