//! `POST organization/entity/`: the entity a comment attaches to, for a video of the
//! request's organisation. Comments keep their video's id as `entity_id`, so the entity
//! is the video and nothing is written; asking again answers the same entity. Needs
//! `ViewVideos` (those who may comment); another organisation's video answers 404.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::video_entity::{Entity, EntityCreate};

use crate::http::error::ApiResult;
use crate::http::extract::{AuthUser, Json};
use crate::http::videos::{find, org_for};
use crate::state::AppState;

/// The comment entity of a video.
#[utoipa::path(post, path = "/organization/entity/", tag = "videos",
    request_body = EntityCreate,
    responses((status = 200, body = Entity), (status = 400), (status = 403), (status = 404)))]
pub async fn create_entity(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<EntityCreate>,
) -> ApiResult<axum::Json<Entity>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let v = find(&state, org, req.task_record).await?;
    Ok(axum::Json(Entity {
        entity_id: v.id,
        task_record: v.id,
        task: v.task_id,
        no_of_comments: v.no_of_comments,
    }))
}
