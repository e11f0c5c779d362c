//! Browsers' Web Push subscriptions on an organisation's topics (`push_subscriptions`;
//! spec section 7 `firebase/topic_subscription/`).
//!
//! Invariant: a row is reached by users only through their own `user_id` (lists,
//! unsubscribing); the sender reads an organisation's topic and removes a row whose
//! endpoint the push service says is gone.

use gemba_shared::api::v1::push::PushSubscription;
use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(FromRow)]
struct Row {
    id: i64,
    organization_id: i64,
    topic: String,
    endpoint: String,
    created_at: i64,
}

impl From<Row> for PushSubscription {
    fn from(r: Row) -> PushSubscription {
        PushSubscription {
            id: r.id,
            topic: r.topic,
            endpoint: r.endpoint,
            organization: r.organization_id,
            created_at: r.created_at,
        }
    }
}

/// What the sender needs of a subscription: where, to whom, and the keys.
#[derive(Debug, Clone, FromRow)]
pub struct Target {
    pub id: i64,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    /// The e-mail address of the user who subscribed.
    pub email: String,
}

/// One subscription to store.
pub struct New<'a> {
    pub org: i64,
    pub user: i64,
    pub topic: &'a str,
    pub endpoint: &'a str,
    pub p256dh: &'a str,
    pub auth: &'a str,
}

/// User `user`'s subscriptions in organisation `org` (of `endpoint` only, if given),
/// by topic.
pub async fn of_user(
    db: &Db,
    org: i64,
    user: i64,
    endpoint: Option<&str>,
) -> sqlx::Result<Vec<PushSubscription>> {
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, organization_id, topic, endpoint, created_at FROM push_subscriptions \
         WHERE organization_id = $1 AND user_id = $2 AND ($3 IS NULL OR endpoint = $3) \
         ORDER BY topic, id",
    )
    .bind(org)
    .bind(user)
    .bind(endpoint)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

/// How many subscriptions `user` keeps, in every organisation.
pub async fn count_of_user(db: &Db, user: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT COUNT(*) FROM push_subscriptions WHERE user_id = $1")
        .bind(user)
        .fetch_one(&db.pool)
        .await
}

/// Stores the subscriptions `all` in one transaction: an endpoint already on the topic
/// of the organisation is taken over (user and keys) rather than added twice.
pub async fn subscribe(db: &Db, all: &[New<'_>]) -> sqlx::Result<()> {
    let mut tx = db.pool.begin().await?;
    for s in all {
        sqlx::query(
            "INSERT INTO push_subscriptions \
             (organization_id, user_id, topic, endpoint, p256dh, auth, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (organization_id, topic, endpoint) DO UPDATE SET \
             user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth",
        )
        .bind(s.org)
        .bind(s.user)
        .bind(s.topic)
        .bind(s.endpoint)
        .bind(s.p256dh)
        .bind(s.auth)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await
}

/// Takes `user`'s `endpoints` off `topic` in `org`; answers how many rows went.
pub async fn unsubscribe(
    db: &Db,
    org: i64,
    user: i64,
    topic: &str,
    endpoints: &[&str],
) -> sqlx::Result<u64> {
    let mut tx = db.pool.begin().await?;
    let mut n = 0;
    for e in endpoints {
        n += sqlx::query(
            "DELETE FROM push_subscriptions WHERE organization_id = $1 AND user_id = $2 \
             AND topic = $3 AND endpoint = $4",
        )
        .bind(org)
        .bind(user)
        .bind(topic)
        .bind(*e)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    }
    tx.commit().await?;
    Ok(n)
}

/// Removes every subscription of `user` with `endpoint` (the browser unsubscribed
/// from its push service), in every organisation; answers how many went.
pub async fn remove_endpoint(db: &Db, user: i64, endpoint: &str) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM push_subscriptions WHERE user_id = $1 AND endpoint = $2")
            .bind(user)
            .bind(endpoint)
            .execute(&db.pool)
            .await?
            .rows_affected(),
    )
}

/// The subscriptions on `topic` of organisation `org`, with their users' addresses.
pub async fn targets(db: &Db, org: i64, topic: &str) -> sqlx::Result<Vec<Target>> {
    sqlx::query_as(
        "SELECT s.id, s.endpoint, s.p256dh, s.auth, u.email FROM push_subscriptions s \
         JOIN users u ON u.id = s.user_id \
         WHERE s.organization_id = $1 AND s.topic = $2 ORDER BY s.id",
    )
    .bind(org)
    .bind(topic)
    .fetch_all(&db.pool)
    .await
}

/// Removes subscription `id` (its push service answered that it is gone).
pub async fn remove(db: &Db, id: i64) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM push_subscriptions WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}
