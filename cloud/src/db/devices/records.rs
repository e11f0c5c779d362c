//! The device records themselves: adding, reading, listing, changing, starring and
//! deleting them.

use super::{COLS, DeviceRow};
use crate::db::{Db, now_ms};

pub struct NewDevice<'a> {
    pub org: i64,
    pub department: Option<i64>,
    pub display_name: &'a str,
    pub serial_number: &'a str,
    pub device_type: &'a str,
    pub code_hash: &'a str,
    pub code_expires_at: i64,
}

pub async fn insert(db: &Db, d: &NewDevice<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO devices (organization_id, department_id, display_name, serial_number, \
         device_type, enrol_code_hash, enrol_expires_at, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(d.org)
    .bind(d.department)
    .bind(d.display_name)
    .bind(d.serial_number)
    .bind(d.device_type)
    .bind(d.code_hash)
    .bind(d.code_expires_at)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// Device `id` of `org` (any organisation when `None`), as `user` sees it.
pub async fn get(db: &Db, user: i64, org: Option<i64>, id: i64) -> sqlx::Result<Option<DeviceRow>> {
    sqlx::query_as::<_, DeviceRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM devices d WHERE d.id = $2 AND ($3 IS NULL OR d.organization_id = $3)"
    )))
    .bind(user)
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}
/// Which devices a list shows.
#[derive(Default)]
pub struct Filter {
    pub org: Option<i64>,
    pub archived: bool,
    pub hide_departmental: bool,
    /// Only devices in no department.
    pub without_department: bool,
    pub active_only: bool,
    /// Only devices that said they are online.
    pub online_only: bool,
    pub search: String,
}

/// Devices (starred first, then by name) and their total count.
pub async fn list(
    db: &Db,
    user: i64,
    f: &Filter,
    page: Option<(i64, i64)>,
) -> sqlx::Result<(Vec<DeviceRow>, i64)> {
    let pattern = (!f.search.trim().is_empty()).then(|| crate::db::contains_pattern(&f.search));
    let mut cond = vec![
        "($2 IS NULL OR d.organization_id = $2)".to_string(),
        format!("d.archived = {}", i64::from(f.archived)),
        if pattern.is_some() {
            "(LOWER(d.display_name) LIKE $3 ESCAPE '\\' OR LOWER(d.serial_number) LIKE $3 ESCAPE '\\')"
                .into()
        } else {
            "$3 IS NULL".into()
        },
        "d.device_type <> $4".into(),
    ];
    if f.without_department {
        cond.push("d.department_id IS NULL".into());
    }
    if f.active_only {
        cond.push("d.active = 1".into());
    }
    if f.online_only {
        cond.push("d.online = 1".into());
    }
    let cond = cond.join(" AND ");
    // Hiding departmental devices compares with their type; showing them compares with
    // the empty type, which no device has.
    let hidden = if f.hide_departmental {
        gemba_shared::api::v1::device::DEPARTMENTAL
    } else {
        ""
    };
    let limit = page.map_or(String::new(), |(offset, limit)| {
        format!(" LIMIT {limit} OFFSET {offset}")
    });
    let rows = sqlx::query_as::<_, DeviceRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM devices d WHERE {cond} \
         ORDER BY starred DESC, LOWER(d.display_name), d.id{limit}"
    )))
    .bind(user)
    .bind(f.org)
    .bind(&pattern)
    .bind(hidden)
    .fetch_all(&db.pool)
    .await?;
    let count = match page {
        None => rows.len() as i64,
        Some(_) => {
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM devices d WHERE $1 = $1 AND {cond}"
            )))
            .bind(user)
            .bind(f.org)
            .bind(&pattern)
            .bind(hidden)
            .fetch_one(&db.pool)
            .await?
        }
    };
    Ok((rows, count))
}

/// The fields a change sets (`None`: unchanged).
#[derive(Default)]
pub struct Change {
    pub display_name: Option<String>,
    pub serial_number: Option<String>,
    pub device_type: Option<String>,
    pub active: Option<bool>,
    pub archived: Option<bool>,
    pub department: Option<Option<i64>>,
    pub settings: Option<String>,
}

impl Change {
    pub fn is_empty(&self) -> bool {
        let Change {
            display_name,
            serial_number,
            device_type,
            active,
            archived,
            department,
            settings,
        } = self;
        display_name.is_none()
            && serial_number.is_none()
            && device_type.is_none()
            && active.is_none()
            && archived.is_none()
            && department.is_none()
            && settings.is_none()
    }
}

/// Applies `c` to device `id` of `org`; false when there is no such device. Archiving
/// revokes the device's credentials and any enrolment code.
pub async fn update(db: &Db, org: i64, id: i64, c: &Change) -> sqlx::Result<bool> {
    let (set_dept, dept) = match c.department {
        Some(d) => (1i64, d),
        None => (0, None),
    };
    let n = sqlx::query(
        "UPDATE devices SET \
         display_name = COALESCE($3, display_name), \
         serial_number = COALESCE($4, serial_number), \
         device_type = COALESCE($5, device_type), \
         active = COALESCE($6, active), \
         archived = COALESCE($7, archived), \
         department_id = CASE WHEN $8 = 1 THEN $9 ELSE department_id END, \
         settings = COALESCE($10, settings), \
         credential_key = CASE WHEN $7 = 1 THEN NULL ELSE credential_key END, \
         enrol_code_hash = CASE WHEN $7 = 1 THEN NULL ELSE enrol_code_hash END, \
         enrol_expires_at = CASE WHEN $7 = 1 THEN NULL ELSE enrol_expires_at END, \
         online = CASE WHEN $7 = 1 THEN 0 ELSE online END \
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .bind(&c.display_name)
    .bind(&c.serial_number)
    .bind(&c.device_type)
    .bind(c.active.map(i64::from))
    .bind(c.archived.map(i64::from))
    .bind(set_dept)
    .bind(dept)
    .bind(&c.settings)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n > 0)
}

pub async fn set_star(db: &Db, user: i64, id: i64, on: bool) -> sqlx::Result<()> {
    if on {
        sqlx::query(
            "INSERT INTO device_stars (device_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(id)
        .bind(user)
        .execute(&db.pool)
        .await?;
    } else {
        sqlx::query("DELETE FROM device_stars WHERE device_id = $1 AND user_id = $2")
            .bind(id)
            .bind(user)
            .execute(&db.pool)
            .await?;
    }
    Ok(())
}

/// Deletes device `id` of `org`. Its cycles stay, no longer naming a device (they have
/// no foreign keys: migration 20261126000001).
pub async fn delete(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let gone = sqlx::query("DELETE FROM devices WHERE organization_id = $1 AND id = $2")
        .bind(org)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        > 0;
    if gone {
        sqlx::query(
            "UPDATE cycles SET device_id = NULL WHERE organization_id = $1 AND device_id = $2",
        )
        .bind(org)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        crate::db::rollups::forget_device(&mut tx, db.backend, org, id).await?;
    }
    tx.commit().await?;
    Ok(gone)
}
