//! Annotation images and the object boxes drawn on them (spec section 7 "Annotation,
//! media and depth"): a frame of a task's video kept as an image, and on it a box per
//! task object seen, as `x`, `y`, `width`, `height` scaled to 0..1 of the image (the
//! top-left corner first). Depth and projector calls name what a depth camera or a
//! projector would add; none is attached today, and they answer so ([`NO_DEPTH_CAMERA`],
//! [`NO_PROJECTOR`]).

use serde::{Deserialize, Serialize};

/// Most boxes on one image.
pub const MAX_OBJECTS_PER_IMAGE: usize = 200;
/// Most images of one task.
pub const MAX_IMAGES_PER_TASK: i64 = 5000;
/// Most ids in one bulk call.
pub const MAX_BULK_IDS: usize = 500;
/// Most images on a page of `annotation_image_list`.
pub const MAX_PAGE_SIZE: i64 = 100;

/// The portal's message when a list of images cannot be read (spec section 8).
pub const ERROR_IN_GETTING_IMAGES: &str = "error in getting images";
/// The answer of the depth calls: no camera of the task's devices reports depth.
pub const NO_DEPTH_CAMERA: &str =
    "No depth camera is attached: this operation's images have no depth.";
/// The answer of the projector calls that change something.
pub const NO_PROJECTOR: &str = "No projector is attached to this operation's devices.";

/// An image to annotate: a frame of one of the task's videos (spec section 3
/// "Annotation image list": `results` of these, and `count`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationImage {
    pub id: i64,
    pub task: i64,
    /// The video it was taken from (gone when that video was deleted).
    pub video: Option<i64>,
    /// Where in the video, in milliseconds.
    pub frame_ms: i64,
    /// Its size in pixels.
    pub width: i64,
    pub height: i64,
    /// The JPEG, a signed media URL.
    pub image_url: String,
    /// The boxes on it.
    pub objects: Vec<AnnotationObject>,
    /// Whether `revert_object_list` would bring back an earlier list of boxes.
    pub can_revert: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A box on an image around a task object.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationObject {
    pub id: i64,
    /// The task object's id.
    pub task_object: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// How sure whoever drew it was (a person: none; a model: 0..1).
    pub confidence: Option<f64>,
}

/// `POST organization/task/annotation_image/`: the frame of `video` at `frame_ms`
/// becomes an image of the video's task.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationImageCreate {
    pub video: i64,
    pub frame_ms: i64,
}

/// `POST organization/task/upload_thumbnail/`: the frame of `video` at `frame_ms`
/// becomes the video's thumbnail.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ThumbnailFrame {
    pub video: i64,
    pub frame_ms: i64,
}

/// Most videos joined by one `merge_video_sequences`.
pub const MAX_MERGED_VIDEOS: usize = 20;

/// `POST organization/task/merge_video_sequences/`: ready videos of the task joined in
/// the order given into a new video of the task.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MergeVideoSequences {
    pub task: i64,
    pub videos: Vec<i64>,
}

/// A box to save on an image.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationObjectWrite {
    pub task_object: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub confidence: Option<f64>,
}

/// `PATCH organization/task/task_object/update_delete`: the image's boxes, all of them
/// (the list replaces the one before, which `revert_object_list` brings back).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationObjectsPut {
    pub image: i64,
    pub objects: Vec<AnnotationObjectWrite>,
}

/// `DELETE organization/task/task_object/update_delete`: these boxes of the image.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationObjectsDelete {
    pub image: i64,
    pub ids: Vec<i64>,
}

/// `PATCH organization/annotations/bulk-delete/`: these images of the task, with their
/// boxes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationBulkDelete {
    pub task: i64,
    pub ids: Vec<i64>,
}

/// A task named in a body: `POST organization/annotation_image/get_static_image/`,
/// `PUT generic/update_projector_region/`, `PATCH generic/copy_projector_media/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationTask {
    pub task: i64,
}

/// `POST generic/revert_object_list/`: the image's boxes as they were before their
/// last change.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RevertObjectList {
    pub image: i64,
}

/// `POST organization/task/fetch_annotation_ids_object/`: the images of the task with
/// a box of `task_object`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationIdsQuery {
    pub task: i64,
    pub task_object: i64,
}

/// Image ids.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationIds {
    pub ids: Vec<i64>,
}

/// `GET organization/task/is_3d/{id}/`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Is3d {
    pub is_3d: bool,
}

/// Which images `fetch_all_annotation_image_list` answers (`?filter=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFilter {
    All,
    Annotated,
    NotAnnotated,
}

impl ImageFilter {
    /// `all` (or nothing), `annotated`, `not_annotated`.
    pub fn parse(s: Option<&str>) -> Result<ImageFilter, String> {
        match s.map(str::trim).unwrap_or("") {
            "" | "all" => Ok(ImageFilter::All),
            "annotated" => Ok(ImageFilter::Annotated),
            "not_annotated" => Ok(ImageFilter::NotAnnotated),
            _ => Err("Choose one of all, annotated, not_annotated.".into()),
        }
    }
}

/// The order of a list of images (`?ordering=`): by when taken (`created_at`, the
/// default), or by video and place in it (`frame_ms`); `-` first for the reverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageOrdering {
    pub by_frame: bool,
    pub descending: bool,
}

impl ImageOrdering {
    pub fn parse(s: Option<&str>) -> Result<ImageOrdering, String> {
        let s = s.map(str::trim).unwrap_or("");
        let (descending, key) = match s.strip_prefix('-') {
            Some(k) => (true, k),
            None => (false, s),
        };
        let by_frame = match key {
            "" | "created_at" | "id" => false,
            "frame_ms" => true,
            _ => {
                return Err("Choose one of created_at, -created_at, frame_ms, -frame_ms.".into());
            }
        };
        Ok(ImageOrdering {
            by_frame,
            descending,
        })
    }
}

/// A box as it is kept: inside the image (0..1, the far corner too), not empty, its
/// confidence in 0..1. The error is the field's message.
pub fn check_box(b: &AnnotationObjectWrite) -> Result<(), String> {
    let all = [b.x, b.y, b.width, b.height];
    if all.iter().any(|v| !v.is_finite()) {
        return Err("A box's x, y, width and height must be numbers.".into());
    }
    if b.x < 0.0 || b.y < 0.0 || b.x > 1.0 || b.y > 1.0 {
        return Err("A box's corner must be inside the image: x and y in 0..1.".into());
    }
    if b.width <= 0.0 || b.height <= 0.0 {
        return Err("A box must have a width and a height above 0.".into());
    }
    // A little slack for the rounding of a drawn box's far edge.
    if b.x + b.width > 1.0 + 1e-6 || b.y + b.height > 1.0 + 1e-6 {
        return Err("A box must end inside the image: x + width and y + height at most 1.".into());
    }
    if let Some(c) = b.confidence
        && !(0.0..=1.0).contains(&c)
    {
        return Err("A box's confidence must be in 0..1.".into());
    }
    Ok(())
}

/// The ids of a bulk call: 1 to [`MAX_BULK_IDS`], duplicates dropped, in order.
pub fn check_ids(ids: &[i64]) -> Result<Vec<i64>, String> {
    if ids.is_empty() {
        return Err("Give at least one id.".into());
    }
    if ids.len() > MAX_BULK_IDS {
        return Err(format!("Give at most {MAX_BULK_IDS} ids at once."));
    }
    let mut out: Vec<i64> = Vec::with_capacity(ids.len());
    for &id in ids {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: f64, y: f64, w: f64, h: f64) -> AnnotationObjectWrite {
        AnnotationObjectWrite {
            task_object: 1,
            x,
            y,
            width: w,
            height: h,
            confidence: None,
        }
    }

    #[test]
    fn boxes_are_inside_the_image_and_not_empty() {
        assert!(check_box(&b(0.0, 0.0, 1.0, 1.0)).is_ok());
        assert!(check_box(&b(0.25, 0.5, 0.5, 0.5)).is_ok());
        assert!(check_box(&b(-0.1, 0.0, 0.5, 0.5)).is_err());
        assert!(check_box(&b(0.0, 1.2, 0.5, 0.5)).is_err());
        assert!(check_box(&b(0.6, 0.0, 0.5, 0.5)).is_err());
        assert!(check_box(&b(0.0, 0.6, 0.5, 0.5)).is_err());
        assert!(check_box(&b(0.1, 0.1, 0.0, 0.5)).is_err());
        assert!(check_box(&b(0.1, 0.1, 0.5, -0.2)).is_err());
        assert!(check_box(&b(f64::NAN, 0.1, 0.5, 0.5)).is_err());
        let mut sure = b(0.1, 0.1, 0.2, 0.2);
        sure.confidence = Some(0.9);
        assert!(check_box(&sure).is_ok());
        sure.confidence = Some(1.5);
        assert!(check_box(&sure).is_err());
    }

    #[test]
    fn bulk_ids_are_bounded_and_deduplicated() {
        assert!(check_ids(&[]).is_err());
        assert_eq!(check_ids(&[3, 1, 3]).unwrap(), vec![3, 1]);
        assert!(check_ids(&vec![1; MAX_BULK_IDS]).is_ok());
        assert!(check_ids(&vec![1; MAX_BULK_IDS + 1]).is_err());
    }

    #[test]
    fn filters_and_orderings_parse_the_spec_query() {
        assert_eq!(ImageFilter::parse(None), Ok(ImageFilter::All));
        assert_eq!(
            ImageFilter::parse(Some("not_annotated")),
            Ok(ImageFilter::NotAnnotated)
        );
        assert!(ImageFilter::parse(Some("boxes")).is_err());
        let o = ImageOrdering::parse(Some("-frame_ms")).unwrap();
        assert!(o.by_frame && o.descending);
        let o = ImageOrdering::parse(None).unwrap();
        assert!(!o.by_frame && !o.descending);
        assert!(ImageOrdering::parse(Some("name")).is_err());
    }
}
