//! Feature control: features, organisations' subscriptions to them, and event
//! notifications (who is e-mailed when an event happens in an organisation).
//!
//! Invariants: a feature is on for an organisation only while it holds an unsuppressed
//! subscription row ([`enabled`]); no row means off. An organisation has at most one
//! subscription per feature and one notification per event type (unique keys).
//! Notification recipients are stored as a JSON array of addresses.

use gemba_shared::api::v1::feature_control::{EventNotification, Feature, SubscribedFeature};
use sqlx::FromRow;

use super::Db;

// ----- features -------------------------------------------------------------------------

#[derive(FromRow)]
struct FeatureRow {
    id: i64,
    name: String,
}

impl From<FeatureRow> for Feature {
    fn from(r: FeatureRow) -> Feature {
        Feature {
            id: r.id,
            name: r.name,
        }
    }
}

pub async fn list(db: &Db) -> sqlx::Result<Vec<Feature>> {
    let rows: Vec<FeatureRow> = sqlx::query_as("SELECT id, name FROM features ORDER BY id")
        .fetch_all(&db.pool)
        .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub async fn by_id(db: &Db, id: i64) -> sqlx::Result<Option<Feature>> {
    let row: Option<FeatureRow> = sqlx::query_as("SELECT id, name FROM features WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await?;
    Ok(row.map(Into::into))
}

/// Fails with a unique violation when the name is taken.
pub async fn insert(db: &Db, name: &str) -> sqlx::Result<Feature> {
    let row: FeatureRow =
        sqlx::query_as("INSERT INTO features (name) VALUES ($1) RETURNING id, name")
            .bind(name)
            .fetch_one(&db.pool)
            .await?;
    Ok(row.into())
}

/// Deletes a feature and every subscription to it. False when there was none.
pub async fn delete(db: &Db, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    sqlx::query("DELETE FROM subscribed_features WHERE feature_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let r = sqlx::query("DELETE FROM features WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(r.rows_affected() > 0)
}

// ----- subscriptions --------------------------------------------------------------------

#[derive(FromRow)]
struct SubscriptionRow {
    id: i64,
    feature_id: i64,
    organization_id: i64,
    feature_name: String,
    #[sqlx(try_from = "super::Flag")]
    is_suppressed: bool,
}

impl From<SubscriptionRow> for SubscribedFeature {
    fn from(r: SubscriptionRow) -> SubscribedFeature {
        SubscribedFeature {
            id: r.id,
            feature: r.feature_id,
            organization: r.organization_id,
            feature_name: r.feature_name,
            is_suppressed: r.is_suppressed,
        }
    }
}

const SUB_SELECT: &str = "SELECT s.id, s.feature_id, s.organization_id, f.name AS feature_name, \
     s.is_suppressed FROM subscribed_features s JOIN features f ON f.id = s.feature_id";

/// Subscriptions of one organisation, or of all when `org` is `None`.
pub async fn subscriptions(db: &Db, org: Option<i64>) -> sqlx::Result<Vec<SubscribedFeature>> {
    let rows: Vec<SubscriptionRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SUB_SELECT} WHERE ($1 IS NULL OR s.organization_id = $1) \
         ORDER BY s.organization_id, s.feature_id"
    )))
    .bind(org)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub async fn subscription(db: &Db, id: i64) -> sqlx::Result<Option<SubscribedFeature>> {
    let row: Option<SubscriptionRow> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("{SUB_SELECT} WHERE s.id = $1")))
            .bind(id)
            .fetch_optional(&db.pool)
            .await?;
    Ok(row.map(Into::into))
}

/// Subscribes `org` to `feature`, or sets `is_suppressed` of the existing subscription.
/// Answers the subscription and whether it was new.
pub async fn subscribe(
    db: &Db,
    feature: i64,
    org: i64,
    is_suppressed: bool,
) -> sqlx::Result<(SubscribedFeature, bool)> {
    let existed: Option<i64> = sqlx::query_scalar(
        "SELECT id FROM subscribed_features WHERE feature_id = $1 AND organization_id = $2",
    )
    .bind(feature)
    .bind(org)
    .fetch_optional(&db.pool)
    .await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO subscribed_features (feature_id, organization_id, is_suppressed) \
         VALUES ($1, $2, $3) ON CONFLICT (feature_id, organization_id) \
         DO UPDATE SET is_suppressed = excluded.is_suppressed RETURNING id",
    )
    .bind(feature)
    .bind(org)
    .bind(is_suppressed as i64)
    .fetch_one(&db.pool)
    .await?;
    let s = subscription(db, id)
        .await?
        .ok_or(sqlx::Error::RowNotFound)?;
    Ok((s, existed.is_none()))
}

pub async fn unsubscribe(db: &Db, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM subscribed_features WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Is feature `name` on for `org`: an unsuppressed subscription exists.
pub async fn enabled(db: &Db, org: i64, name: &str) -> sqlx::Result<bool> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM subscribed_features s JOIN features f ON f.id = s.feature_id \
         WHERE s.organization_id = $1 AND f.name = $2 AND s.is_suppressed = 0",
    )
    .bind(org)
    .bind(name)
    .fetch_one(&db.pool)
    .await?;
    Ok(n > 0)
}

// ----- event notifications --------------------------------------------------------------

#[derive(FromRow)]
struct NotificationRow {
    id: i64,
    event_type: String,
    recipients: String,
    organization_id: i64,
    organization_name: String,
}

impl From<NotificationRow> for EventNotification {
    fn from(r: NotificationRow) -> EventNotification {
        EventNotification {
            id: r.id,
            event_type: r.event_type,
            // Written only by this module, always a JSON array of strings.
            recipients: serde_json::from_str(&r.recipients).unwrap_or_default(),
            organization: r.organization_id,
            organization_name: r.organization_name,
        }
    }
}

const EN_SELECT: &str = "SELECT n.id, n.event_type, n.recipients, n.organization_id, \
     o.org_name_to_display AS organization_name \
     FROM event_notifications n JOIN organizations o ON o.id = n.organization_id";

/// Notifications of one organisation, or of all when `org` is `None`.
pub async fn notifications(db: &Db, org: Option<i64>) -> sqlx::Result<Vec<EventNotification>> {
    let rows: Vec<NotificationRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{EN_SELECT} WHERE ($1 IS NULL OR n.organization_id = $1) \
         ORDER BY n.organization_id, n.id"
    )))
    .bind(org)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub async fn notification(db: &Db, id: i64) -> sqlx::Result<Option<EventNotification>> {
    let row: Option<NotificationRow> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("{EN_SELECT} WHERE n.id = $1")))
            .bind(id)
            .fetch_optional(&db.pool)
            .await?;
    Ok(row.map(Into::into))
}

/// The notification of `org` for `event_type`: who to e-mail when it happens.
pub async fn notification_for(
    db: &Db,
    org: i64,
    event_type: &str,
) -> sqlx::Result<Option<EventNotification>> {
    let row: Option<NotificationRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{EN_SELECT} WHERE n.organization_id = $1 AND n.event_type = $2"
    )))
    .bind(org)
    .bind(event_type)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(Into::into))
}

fn to_json(recipients: &[String]) -> String {
    serde_json::Value::from(recipients.to_vec()).to_string()
}

/// Fails with a unique violation when `org` already has one for `event_type`.
pub async fn insert_notification(
    db: &Db,
    org: i64,
    event_type: &str,
    recipients: &[String],
) -> sqlx::Result<EventNotification> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO event_notifications (organization_id, event_type, recipients) \
         VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(org)
    .bind(event_type)
    .bind(to_json(recipients))
    .fetch_one(&db.pool)
    .await?;
    notification(db, id).await?.ok_or(sqlx::Error::RowNotFound)
}

pub async fn update_notification(
    db: &Db,
    id: i64,
    event_type: &str,
    recipients: &[String],
) -> sqlx::Result<Option<EventNotification>> {
    let r = sqlx::query(
        "UPDATE event_notifications SET event_type = $1, recipients = $2 WHERE id = $3",
    )
    .bind(event_type)
    .bind(to_json(recipients))
    .bind(id)
    .execute(&db.pool)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(None);
    }
    notification(db, id).await
}

pub async fn delete_notification(db: &Db, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM event_notifications WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}
