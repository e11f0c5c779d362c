//! Organisations and departments.

use sqlx::FromRow;

use super::{Db, now_ms};

pub use gemba_shared::api::v1::organization::Organization;

/// An `organizations` row; answered as the wire type [`Organization`].
#[derive(FromRow)]
struct OrgRow {
    id: i64,
    name: String,
    org_name_to_display: String,
    #[sqlx(try_from = "super::Flag")]
    use_proxy_server: bool,
    created_at: i64,
    time_zone: String,
}

impl From<OrgRow> for Organization {
    fn from(r: OrgRow) -> Organization {
        Organization {
            id: r.id,
            name: r.name,
            org_name_to_display: r.org_name_to_display,
            use_proxy_server: r.use_proxy_server,
            created_at: r.created_at,
            time_zone: r.time_zone,
        }
    }
}

const COLS: &str = "id, name, org_name_to_display, use_proxy_server, created_at, time_zone";

pub async fn by_id(db: &Db, id: i64) -> sqlx::Result<Option<Organization>> {
    sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM organizations WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
    .map(|r| r.map(Into::into))
}

pub async fn by_name(db: &Db, name: &str) -> sqlx::Result<Option<Organization>> {
    sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM organizations WHERE name = $1"
    )))
    .bind(name)
    .fetch_optional(&db.pool)
    .await
    .map(|r| r.map(Into::into))
}

pub async fn insert(db: &Db, name: &str, display: &str, proxy: bool) -> sqlx::Result<Organization> {
    sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(format!(
        "INSERT INTO organizations (name, org_name_to_display, use_proxy_server, created_at) \
         VALUES ($1, $2, $3, $4) RETURNING {COLS}"
    )))
    .bind(name)
    .bind(display)
    .bind(proxy as i64)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
    .map(Into::into)
}

pub async fn update(
    db: &Db,
    id: i64,
    name: &str,
    display: &str,
    proxy: bool,
    time_zone: &str,
) -> sqlx::Result<Option<Organization>> {
    sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(format!(
        "UPDATE organizations SET name = $1, org_name_to_display = $2, use_proxy_server = $3, \
         time_zone = $5 WHERE id = $4 RETURNING {COLS}"
    )))
    .bind(name)
    .bind(display)
    .bind(proxy as i64)
    .bind(id)
    .bind(time_zone)
    .fetch_optional(&db.pool)
    .await
    .map(|r| r.map(Into::into))
}

/// Deletes an organisation, with everything of it (its cycles too). Its users whose current organisation it was move to another
/// organisation they are linked to (the lowest id), so they can still sign in; users
/// with no other link are left without one.
pub async fn delete(db: &Db, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "UPDATE users SET organization_id = (SELECT MIN(uo.organization_id) \
         FROM user_organizations uo WHERE uo.user_id = users.id AND uo.organization_id <> $1) \
         WHERE organization_id = $1",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    // Cycles have no foreign keys (migration 20261126000001): they go explicitly.
    sqlx::query("DELETE FROM cycles WHERE organization_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    super::rollups::forget_org(&mut tx, id).await?;
    let r = sqlx::query("DELETE FROM organizations WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(r.rows_affected() > 0)
}

/// A page of organisations matching `search` (name or display name), and the total count.
pub async fn page(
    db: &Db,
    search: &str,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<Organization>, i64)> {
    // SQLite prepares a statement again whenever it is run with new values for a LIKE
    // (on an indexed column) or a LIMIT/OFFSET parameter, as their values shape the plan.
    // So there is no LIKE without a search, and the limit and offset (numbers the server
    // computed) are written into the statement.
    let pattern = (!search.is_empty()).then(|| super::contains_pattern(search));
    let cond = if pattern.is_some() {
        "(LOWER(name) LIKE $1 ESCAPE '\\' OR LOWER(org_name_to_display) LIKE $1 ESCAPE '\\')"
    } else {
        "$1 IS NULL"
    };
    let rows = sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM organizations WHERE {cond} ORDER BY id LIMIT {limit} OFFSET {offset}"
    )))
    .bind(&pattern)
    .fetch_all(&db.pool)
    .await?;
    let count = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM organizations WHERE {cond}"
    )))
    .bind(&pattern)
    .fetch_one(&db.pool)
    .await?;
    Ok((rows.into_iter().map(Into::into).collect(), count))
}

/// Organisations a user is linked to.
pub async fn of_user(db: &Db, user: i64) -> sqlx::Result<Vec<Organization>> {
    sqlx::query_as::<_, OrgRow>(
        "SELECT o.id, o.name, o.org_name_to_display, o.use_proxy_server, o.created_at, \
         o.time_zone \
         FROM organizations o JOIN user_organizations uo ON uo.organization_id = o.id \
         WHERE uo.user_id = $1 ORDER BY o.id",
    )
    .bind(user)
    .fetch_all(&db.pool)
    .await
    .map(|rows| rows.into_iter().map(Into::into).collect())
}

pub use gemba_shared::api::v1::organization::Department;

pub async fn departments(db: &Db, org: i64) -> sqlx::Result<Vec<Department>> {
    sqlx::query_as(
        "SELECT id, organization_id AS organization, name FROM departments \
         WHERE organization_id = $1 ORDER BY id",
    )
    .bind(org)
    .fetch_all(&db.pool)
    .await
}

pub async fn insert_department(db: &Db, org: i64, name: &str) -> sqlx::Result<Department> {
    sqlx::query_as(
        "INSERT INTO departments (organization_id, name, created_at) VALUES ($1, $2, $3) \
         RETURNING id, organization_id AS organization, name",
    )
    .bind(org)
    .bind(name)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}
