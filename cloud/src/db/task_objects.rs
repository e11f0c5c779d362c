//! What a task's object detector works with: task objects, plane objects, one
//! detection rule per step, and the task's regions of interest. Callers have checked
//! that the task belongs to the request's organisation; each query names the task.

use gemba_shared::api::v1::task::{DetectionRule, JsonObject, PlaneObject, StepRule, TaskObject};
use sqlx::FromRow;

use super::Db;

#[derive(FromRow)]
struct ObjectRow {
    id: i64,
    task_id: i64,
    name: String,
    outline_color: String,
    #[sqlx(try_from = "super::Flag")]
    is_static: bool,
    step_id: Option<i64>,
}

impl From<ObjectRow> for TaskObject {
    fn from(r: ObjectRow) -> Self {
        TaskObject {
            id: r.id,
            task: r.task_id,
            name: r.name,
            outline_color: r.outline_color,
            is_static: r.is_static,
            step_id: r.step_id.and_then(|s| u32::try_from(s).ok()),
        }
    }
}

const OBJECT_COLS: &str = "id, task_id, name, outline_color, is_static, step_id";

/// Task `task`'s objects, only the static (or moving) ones when `is_static` is given.
pub async fn objects(db: &Db, task: i64, is_static: Option<bool>) -> sqlx::Result<Vec<TaskObject>> {
    sqlx::query_as::<_, ObjectRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {OBJECT_COLS} FROM task_objects WHERE task_id = $1 AND ($2 IS NULL OR is_static = $2) ORDER BY id"
    )))
    .bind(task)
    .bind(is_static.map(i64::from))
    .fetch_all(&db.pool)
    .await
    .map(|rows| rows.into_iter().map(Into::into).collect())
}

/// Object `id` with the task it belongs to.
pub async fn object(db: &Db, id: i64) -> sqlx::Result<Option<TaskObject>> {
    sqlx::query_as::<_, ObjectRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {OBJECT_COLS} FROM task_objects WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
    .map(|r| r.map(Into::into))
}

pub async fn object_count(db: &Db, task: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT COUNT(*) FROM task_objects WHERE task_id = $1")
        .bind(task)
        .fetch_one(&db.pool)
        .await
}

/// Inserts (`o.id` 0) or replaces object `o`; answers it as stored.
pub async fn save_object(db: &Db, o: &TaskObject) -> sqlx::Result<TaskObject> {
    let sql = if o.id == 0 {
        format!(
            "INSERT INTO task_objects (task_id, name, outline_color, is_static, step_id) \
             VALUES ($1, $2, $3, $4, $5) RETURNING {OBJECT_COLS}"
        )
    } else {
        format!(
            "UPDATE task_objects SET name = $2, outline_color = $3, is_static = $4, step_id = $5 \
             WHERE task_id = $1 AND id = $6 RETURNING {OBJECT_COLS}"
        )
    };
    sqlx::query_as::<_, ObjectRow>(sqlx::AssertSqlSafe(sql))
        .bind(o.task)
        .bind(&o.name)
        .bind(&o.outline_color)
        .bind(i64::from(o.is_static))
        .bind(o.step_id.map(i64::from))
        .bind(o.id)
        .fetch_one(&db.pool)
        .await
        .map(Into::into)
}

/// Deletes object `id` of `task` and takes it out of the task's rules, in one
/// transaction.
pub async fn delete_object(db: &Db, task: i64, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let r = sqlx::query("DELETE FROM task_objects WHERE task_id = $1 AND id = $2")
        .bind(task)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let rules: Vec<RuleRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {RULE_COLS} FROM detection_rules WHERE task_id = $1"
    )))
    .bind(task)
    .fetch_all(&mut *tx)
    .await?;
    for row in rules {
        let mut rule = DetectionRule::from(row);
        let before = rule.clone();
        rule.static_object.retain(|&o| o != id);
        rule.non_static_object.retain(|&o| o != id);
        rule.rule.objects_present.retain(|&o| o != id);
        if rule != before {
            write_rule(&mut tx, &rule).await?;
        }
    }
    tx.commit().await?;
    Ok(r.rows_affected() > 0)
}

// ----- plane objects -----------------------------------------------------------------------

#[derive(FromRow)]
struct PlaneRow {
    id: i64,
    task_id: i64,
    name: String,
    points: String,
}

impl From<PlaneRow> for PlaneObject {
    fn from(r: PlaneRow) -> Self {
        PlaneObject {
            id: r.id,
            task: r.task_id,
            name: r.name,
            // Written only here, from checked points.
            points: serde_json::from_str(&r.points).unwrap_or_default(),
        }
    }
}

pub async fn planes(db: &Db, task: i64) -> sqlx::Result<Vec<PlaneObject>> {
    sqlx::query_as::<_, PlaneRow>(
        "SELECT id, task_id, name, points FROM plane_objects WHERE task_id = $1 ORDER BY id",
    )
    .bind(task)
    .fetch_all(&db.pool)
    .await
    .map(|rows| rows.into_iter().map(Into::into).collect())
}

pub async fn plane(db: &Db, id: i64) -> sqlx::Result<Option<PlaneObject>> {
    sqlx::query_as::<_, PlaneRow>(
        "SELECT id, task_id, name, points FROM plane_objects WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&db.pool)
    .await
    .map(|r| r.map(Into::into))
}

/// Inserts (`p.id` 0) or replaces plane `p`.
pub async fn save_plane(db: &Db, p: &PlaneObject) -> sqlx::Result<PlaneObject> {
    let sql = if p.id == 0 {
        "INSERT INTO plane_objects (task_id, name, points) VALUES ($1, $2, $3) \
         RETURNING id, task_id, name, points"
    } else {
        "UPDATE plane_objects SET name = $2, points = $3 WHERE task_id = $1 AND id = $4 \
         RETURNING id, task_id, name, points"
    };
    sqlx::query_as::<_, PlaneRow>(sql)
        .bind(p.task)
        .bind(&p.name)
        .bind(serde_json::to_string(&p.points).expect("points serialise"))
        .bind(p.id)
        .fetch_one(&db.pool)
        .await
        .map(Into::into)
}

pub async fn delete_plane(db: &Db, task: i64, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM plane_objects WHERE task_id = $1 AND id = $2")
        .bind(task)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

// ----- detection rules ---------------------------------------------------------------------

#[derive(FromRow)]
struct RuleRow {
    id: i64,
    task_id: i64,
    step: i64,
    static_object: String,
    non_static_object: String,
    #[sqlx(try_from = "super::Flag")]
    verify: bool,
    rule: String,
}

impl From<RuleRow> for DetectionRule {
    fn from(r: RuleRow) -> Self {
        // The JSON columns are written only by `write_rule`, from checked values.
        DetectionRule {
            id: Some(r.id),
            task: r.task_id,
            step: u32::try_from(r.step).unwrap_or_default(),
            static_object: serde_json::from_str(&r.static_object).unwrap_or_default(),
            non_static_object: serde_json::from_str(&r.non_static_object).unwrap_or_default(),
            verify: r.verify,
            rule: serde_json::from_str::<StepRule>(&r.rule).unwrap_or_default(),
        }
    }
}

const RULE_COLS: &str = "id, task_id, step, static_object, non_static_object, verify, rule";

/// The stored rules of task `task`, by step.
pub async fn rules(db: &Db, task: i64) -> sqlx::Result<Vec<DetectionRule>> {
    sqlx::query_as::<_, RuleRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {RULE_COLS} FROM detection_rules WHERE task_id = $1 ORDER BY step"
    )))
    .bind(task)
    .fetch_all(&db.pool)
    .await
    .map(|rows| rows.into_iter().map(Into::into).collect())
}

pub async fn rule(db: &Db, id: i64) -> sqlx::Result<Option<DetectionRule>> {
    sqlx::query_as::<_, RuleRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {RULE_COLS} FROM detection_rules WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
    .map(|r| r.map(Into::into))
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("rule parts serialise")
}

async fn write_rule(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    r: &DetectionRule,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE detection_rules SET step = $1, static_object = $2, non_static_object = $3, \
         verify = $4, rule = $5 WHERE id = $6",
    )
    .bind(i64::from(r.step))
    .bind(json(&r.static_object))
    .bind(json(&r.non_static_object))
    .bind(i64::from(r.verify))
    .bind(json(&r.rule))
    .bind(r.id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Inserts (`r.id` None) or replaces rule `r`; a second rule for a step is a unique
/// violation.
pub async fn save_rule(db: &Db, r: &DetectionRule) -> sqlx::Result<DetectionRule> {
    let mut tx = db.begin_write().await?;
    let id = match r.id {
        Some(id) => {
            write_rule(&mut tx, r).await?;
            id
        }
        None => {
            sqlx::query_scalar(
                "INSERT INTO detection_rules (task_id, step, static_object, non_static_object, verify, rule) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            )
            .bind(r.task)
            .bind(i64::from(r.step))
            .bind(json(&r.static_object))
            .bind(json(&r.non_static_object))
            .bind(i64::from(r.verify))
            .bind(json(&r.rule))
            .fetch_one(&mut *tx)
            .await?
        }
    };
    tx.commit().await?;
    Ok(DetectionRule {
        id: Some(id),
        ..r.clone()
    })
}

/// Deletes the rules `ids` of task `task`; answers how many went.
pub async fn delete_rules(db: &Db, task: Option<i64>, ids: &[i64]) -> sqlx::Result<u64> {
    let mut tx = db.begin_write().await?;
    let mut n = 0;
    for id in ids {
        n += sqlx::query(
            "DELETE FROM detection_rules WHERE id = $1 AND ($2 IS NULL OR task_id = $2)",
        )
        .bind(id)
        .bind(task)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    }
    tx.commit().await?;
    Ok(n)
}

// ----- regions -----------------------------------------------------------------------------

pub async fn regions(db: &Db, task: i64) -> sqlx::Result<JsonObject> {
    let json: Option<String> =
        sqlx::query_scalar("SELECT region_json FROM task_regions WHERE task_id = $1")
            .bind(task)
            .fetch_optional(&db.pool)
            .await?;
    Ok(json
        .and_then(|j| serde_json::from_str(&j).ok())
        .unwrap_or_default())
}

pub async fn set_regions(db: &Db, task: i64, regions: &JsonObject) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO task_regions (task_id, region_json) VALUES ($1, $2) \
         ON CONFLICT (task_id) DO UPDATE SET region_json = excluded.region_json",
    )
    .bind(task)
    .bind(serde_json::to_string(regions).expect("regions serialise"))
    .execute(&db.pool)
    .await?;
    Ok(())
}
