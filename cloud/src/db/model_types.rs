//! Model types and their model files (spec section 3 "Model type"): the platform's
//! catalogue of step-model recipes, not any one organisation's (docs/decisions.md
//! "Model types are the platform's").

use gemba_shared::api::v1::training::{ModelFile, ModelType};
use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(FromRow, Clone, Debug)]
pub struct TypeRow {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub input_width: i64,
    pub input_height: i64,
    pub hidden: i64,
    pub created_at: i64,
}

const TYPE_COLS: &str = "id, name, description, input_width, input_height, hidden, created_at";

impl TypeRow {
    /// The type as the API answers it, with those of `files` that are its own.
    pub fn into_api(self, files: &[FileRow]) -> ModelType {
        ModelType {
            model_files: files
                .iter()
                .filter(|f| f.model_type_id == self.id)
                .cloned()
                .map(FileRow::into_api)
                .collect(),
            id: self.id,
            name: self.name,
            description: self.description,
            input_width: self.input_width as u32,
            input_height: self.input_height as u32,
            hidden: self.hidden as u32,
            created_at: self.created_at,
        }
    }
}

#[derive(FromRow, Clone, Debug)]
pub struct FileRow {
    pub id: i64,
    pub model_type_id: i64,
    pub name: String,
    pub object_key: String,
    pub version: String,
    pub labels: String,
    pub sha256: String,
    pub size_bytes: i64,
    pub created_at: i64,
}

const FILE_COLS: &str =
    "id, model_type_id, name, object_key, version, labels, sha256, size_bytes, created_at";

impl FileRow {
    pub fn labels(&self) -> Vec<String> {
        serde_json::from_str(&self.labels).unwrap_or_default()
    }

    pub fn into_api(self) -> ModelFile {
        ModelFile {
            labels: self.labels(),
            id: self.id,
            model_type: self.model_type_id,
            name: self.name,
            version: self.version,
            sha256: self.sha256,
            size_bytes: self.size_bytes,
            created_at: self.created_at,
        }
    }
}

/// Every type, oldest first.
pub async fn types(db: &Db) -> sqlx::Result<Vec<TypeRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TYPE_COLS} FROM model_types ORDER BY id"
    )))
    .fetch_all(&db.pool)
    .await
}

pub async fn get_type(db: &Db, id: i64) -> sqlx::Result<Option<TypeRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TYPE_COLS} FROM model_types WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// The type training follows when a task chose none: the oldest.
pub async fn default_type(db: &Db) -> sqlx::Result<Option<TypeRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TYPE_COLS} FROM model_types ORDER BY id LIMIT 1"
    )))
    .fetch_optional(&db.pool)
    .await
}

pub struct Recipe<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub input_width: u32,
    pub input_height: u32,
    pub hidden: u32,
}

/// A new type; a taken name is the database's unique violation.
pub async fn create_type(db: &Db, r: &Recipe<'_>) -> sqlx::Result<TypeRow> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO model_types (name, description, input_width, input_height, hidden, \
         created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING {TYPE_COLS}"
    )))
    .bind(r.name)
    .bind(r.description)
    .bind(i64::from(r.input_width))
    .bind(i64::from(r.input_height))
    .bind(i64::from(r.hidden))
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// Writes every field of type `id` (the caller merged the change into the row).
pub async fn update_type(db: &Db, t: &TypeRow) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE model_types SET name = $2, description = $3, input_width = $4, \
         input_height = $5, hidden = $6 WHERE id = $1",
    )
    .bind(t.id)
    .bind(&t.name)
    .bind(&t.description)
    .bind(t.input_width)
    .bind(t.input_height)
    .bind(t.hidden)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Whether anything was made to type `id`'s recipe: a model file or a model version
/// (of any organisation).
pub async fn type_in_use(db: &Db, id: i64) -> sqlx::Result<bool> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM model_files WHERE model_type_id = $1) \
         + (SELECT COUNT(*) FROM model_versions WHERE model_type_id = $1)",
    )
    .bind(id)
    .fetch_one(&db.pool)
    .await?;
    Ok(n > 0)
}

/// Every file, oldest first (the catalogue is small: the admin uploads them).
pub async fn all_files(db: &Db) -> sqlx::Result<Vec<FileRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FILE_COLS} FROM model_files ORDER BY id"
    )))
    .fetch_all(&db.pool)
    .await
}

pub async fn files_of(db: &Db, type_id: i64) -> sqlx::Result<Vec<FileRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FILE_COLS} FROM model_files WHERE model_type_id = $1 ORDER BY id"
    )))
    .bind(type_id)
    .fetch_all(&db.pool)
    .await
}

pub async fn file(db: &Db, id: i64) -> sqlx::Result<Option<FileRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FILE_COLS} FROM model_files WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// The files among `ids` (ids the server parsed).
pub async fn files(db: &Db, ids: &[i64]) -> sqlx::Result<Vec<FileRow>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let list = super::id_list(ids);
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FILE_COLS} FROM model_files WHERE id IN ({list}) ORDER BY id"
    )))
    .fetch_all(&db.pool)
    .await
}

pub struct NewFile<'a> {
    pub model_type_id: i64,
    pub name: &'a str,
    pub object_key: &'a str,
    pub version: &'a str,
    pub labels: &'a [String],
    pub sha256: &'a str,
    pub size_bytes: i64,
}

pub async fn insert_file(db: &Db, f: &NewFile<'_>) -> sqlx::Result<FileRow> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO model_files (model_type_id, name, object_key, version, labels, sha256, \
         size_bytes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {FILE_COLS}"
    )))
    .bind(f.model_type_id)
    .bind(f.name)
    .bind(f.object_key)
    .bind(f.version)
    .bind(serde_json::to_string(f.labels).expect("labels serialise"))
    .bind(f.sha256)
    .bind(f.size_bytes)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// Moves files `ids` (all of which exist: the caller checked) to type `to`.
pub async fn move_files(db: &Db, ids: &[i64], to: i64) -> sqlx::Result<()> {
    let list = super::id_list(ids);
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE model_files SET model_type_id = $1 WHERE id IN ({list})"
    )))
    .bind(to)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Deletes files `ids`, all or none: `Err(id)` names one that is not there.
pub async fn delete_files(db: &Db, ids: &[i64]) -> sqlx::Result<Result<Vec<FileRow>, i64>> {
    if ids.is_empty() {
        return Ok(Ok(vec![]));
    }
    let list = super::id_list(ids);
    let mut tx = db.begin_write().await?;
    let gone: Vec<FileRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "DELETE FROM model_files WHERE id IN ({list}) RETURNING {FILE_COLS}"
    )))
    .fetch_all(&mut *tx)
    .await?;
    if let Some(&missing) = ids.iter().find(|&&id| !gone.iter().any(|r| r.id == id)) {
        return Ok(Err(missing));
    }
    tx.commit().await?;
    Ok(Ok(gone))
}
