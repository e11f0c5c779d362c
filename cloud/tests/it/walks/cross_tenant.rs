//! The tenancy walk's table: every call that takes an id, with organisation B's ids. One
//! table of every such call, long by design: split, a call would be easy to miss.

use serde_json::{Value, json};

use super::requests::{Call, Need, UNKNOWN_ID, call};
use super::world::{Me, TenantB, World};

/// A call with one of B's ids. It must be refused (403 or 404); when `unknown` names
/// a body field, a 400 on that field (B's id treated as unknown) is a refusal too.
pub(super) struct Cross {
    pub(super) call: Call,
    pub(super) unknown: Option<&'static str>,
    /// The id names a record of the platform's, which every organisation reads.
    pub(super) platform: bool,
}

pub(super) fn cross(op: &'static str, url: impl Into<String>, body: Option<Value>) -> Cross {
    Cross {
        call: call(op, body, Need::SignedIn).at(url),
        unknown: None,
        platform: false,
    }
}

impl Cross {
    pub(super) fn or_unknown(mut self, field: &'static str) -> Cross {
        self.unknown = Some(field);
        self
    }

    pub(super) fn platform(mut self) -> Cross {
        self.platform = true;
        self
    }
}

/// Every call that takes an id, with B's ids, as `me` (a user of A) makes it.
pub(super) fn cross_tenant(
    b: &TenantB,
    a: i64,
    wa: &World,
    org_admin_role: i64,
    me: &Me,
) -> Vec<Cross> {
    let (a_task, a_rule, a_device, a_video) =
        (wa.task, wa.detector.rule, wa.devices.device, wa.video.video);
    let bo = b.org;
    let bu = &b.user;
    let mut v = vec![
        cross(
            "PATCH /organization/{id}/",
            format!("organization/{bo}/"),
            Some(json!({"org_name_to_display": "Taken over", "use_proxy_server": true})),
        ),
        cross("DELETE /organization/{id}/", format!("organization/{bo}/"), None),
        cross("GET /organization/{id}/department/", format!("organization/{bo}/department/"), None),
        cross(
            "POST /organization/{id}/department/",
            format!("organization/{bo}/department/"),
            Some(json!({"name": "Intruders"})),
        ),
        cross(
            "PATCH /organization/organization-switch",
            "organization/organization-switch",
            Some(json!({"organization": bo})),
        )
        .or_unknown("organization"),
        cross(
            "PATCH /account/switch_user_organization",
            "account/switch_user_organization",
            Some(json!({"organization": bo, "organizationDisplayName": "Tenant B", "local_storage": {"a": 1}})),
        )
        .or_unknown("organization"),
        cross(
            "GET /account/linked_users_list/",
            format!("account/linked_users_list/?organization={bo}"),
            None,
        ),
        cross(
            "POST /account/linked_organizations",
            "account/linked_organizations",
            Some(json!({"user_id": me.id, "organization": bo})),
        ),
        cross(
            "POST /account/linked_organizations",
            "account/linked_organizations",
            Some(json!({"user_id": bu.id, "organization": a})),
        ),
        cross(
            "PATCH /account/session/update/{id}/",
            format!("account/session/update/{}/", bu.activity),
            None,
        ),
        cross(
            "POST /account/session/create/",
            "account/session/create/",
            Some(json!({"user": bu.id, "browser": "x", "browser_version": "1"})),
        )
        .or_unknown("user"),
        cross(
            "GET /account/retrieve-session/",
            format!("account/retrieve-session/?email={}&sessionKey={}", bu.email, bu.session_key),
            None,
        ),
        cross(
            "PUT /account/approve_user",
            "account/approve_user",
            Some(json!({"email": bu.email, "roleId": org_admin_role})),
        ),
        cross(
            "PUT /account/assign_user_org",
            "account/assign_user_org",
            Some(json!({"email": bu.email, "organization": a})),
        ),
        cross(
            "PUT /account/assign_user_org",
            "account/assign_user_org",
            Some(json!({"email": me.email, "organization": bo})),
        ),
        cross("GET /account/users_list/v2", "account/users_list/v2?is_admin=true", None),
        cross("GET /account/users_list", "account/users_list?is_admin=true", None),
        cross("GET /admin/outbox/", format!("admin/outbox/?recipient={}", bu.email), None),
        cross(
            "GET /admin/user-report/",
            format!("admin/user-report/?organization={bo}"),
            None,
        ),
        cross(
            "GET /admin/user-report/csv/",
            format!("admin/user-report/csv/?organization={bo}"),
            None,
        ),
        cross(
            "GET /admin/annotations/",
            format!("admin/annotations/?organization={bo}"),
            None,
        ),
        // No organisation in it (every organisation's labelers); `page_size` is its number.
        cross("GET /admin/labelers/", "admin/labelers/?page_size=100", None),
        cross(
            "GET /organization/audit_log/",
            format!("organization/audit_log/?organization={bo}"),
            None,
        ),
        cross("DELETE /feature_control/feature/", format!("feature_control/feature/?id={}", b.feature), None),
        cross(
            "GET /feature_control/subscribed_feature/",
            format!("feature_control/subscribed_feature/?organization={bo}"),
            None,
        ),
        cross(
            "POST /feature_control/subscribed_feature/",
            "feature_control/subscribed_feature/",
            Some(json!({"Feature": b.feature, "Organization": bo, "is_suppressed": true})),
        ),
        cross(
            "DELETE /feature_control/subscribed_feature/",
            format!("feature_control/subscribed_feature/?id={}", b.subscription),
            None,
        ),
        cross(
            "GET /feature_control/event_notifications",
            format!("feature_control/event_notifications?organization={bo}"),
            None,
        ),
        cross(
            "POST /feature_control/event_notifications",
            "feature_control/event_notifications",
            Some(json!({"event_type": "Task Update", "recipients": ["intruder@a.test"], "Organization": bo})),
        )
        .or_unknown("Organization"),
        cross(
            "GET /feature_control/event_notification/{id}",
            format!("feature_control/event_notification/{}", b.notification),
            None,
        ),
        cross(
            "DELETE /feature_control/event_notification/{id}",
            format!("feature_control/event_notification/{}", b.notification),
            None,
        ),
        cross(
            "GET /feature_control/get_event_notification/{org}/{event}",
            format!("feature_control/get_event_notification/{bo}/Task%20Update"),
            None,
        ),
    ];
    let (bt, bh) = (b.task, b.task_history);
    let (bd, bdept) = (b.devices.device, b.devices.dept);
    v.extend([
        cross(
            "GET /device/device_org/{id}/",
            format!("device/device_org/{bo}/"),
            None,
        ),
        cross(
            "GET /device/{id}/get_department_less_devices/",
            format!("device/{bo}/get_department_less_devices/"),
            None,
        ),
        cross(
            "PATCH /device/{id}/assign_device_to_department/{dept}/",
            format!("device/{bd}/assign_device_to_department/{bdept}/"),
            None,
        ),
        cross(
            "PATCH /device/{id}/assign_device_to_department/{dept}/",
            format!("device/{a_device}/assign_device_to_department/{bdept}/"),
            None,
        ),
        cross(
            "GET /device/{id}/device_details/",
            format!("device/{bd}/device_details/"),
            None,
        ),
        // Device monitoring, keyed by B's organisation (issue 31).
        cross(
            "GET /monitoring/{org}/device_status/",
            format!("monitoring/{bo}/device_status/"),
            None,
        ),
        cross(
            "GET /monitoring/{org}/device_monitoring/",
            format!("monitoring/{bo}/device_monitoring/"),
            None,
        ),
        // What B's device keeps (issue 29), by B's ids, and A's device with B's task.
        cross(
            "GET /device/remote_cam/{id}/",
            format!("device/remote_cam/{bd}/"),
            None,
        ),
        cross(
            "POST /device/remote_cam/{id}/",
            format!("device/remote_cam/{bd}/"),
            Some(json!({"name": "intruder", "url": "rtsp://10.0.0.66/s"})),
        ),
        cross(
            "PATCH /device/remote_cam/{id}/",
            format!("device/remote_cam/{}/", b.devices.remote_cam),
            Some(json!({"url": "rtsp://10.0.0.66/s", "password": "taken"})),
        ),
        cross(
            "DELETE /device/remote_cam/{id}/",
            format!("device/remote_cam/{}/", b.devices.remote_cam),
            None,
        ),
        cross(
            "GET /device/{id}/opcua_bindings/",
            format!("device/{bd}/opcua_bindings/"),
            None,
        ),
        cross(
            "POST /device/{id}/opcua_bindings/",
            format!("device/{bd}/opcua_bindings/"),
            Some(json!({"endpoint": "opc.tcp://10.0.0.66:4840", "node_id": "i=85",
                "camera": "door", "role": "end_cycle"})),
        ),
        cross(
            "DELETE /device/{id}/opcua_bindings/{binding}/",
            format!("device/{bd}/opcua_bindings/{}/", b.devices.binding),
            None,
        ),
        // B's binding named under A's device.
        cross(
            "DELETE /device/{id}/opcua_bindings/{binding}/",
            format!("device/{a_device}/opcua_bindings/{}/", b.devices.binding),
            None,
        ),
        cross(
            "GET /device/blur_regions",
            format!("device/blur_regions?device={bd}"),
            None,
        ),
        cross(
            "POST /device/blur_regions",
            "device/blur_regions",
            Some(json!({"device": bd, "camera": "door",
                "regions": [{"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0}]})),
        ),
        cross(
            "PUT /device/blur_regions",
            "device/blur_regions",
            Some(json!({"device": bd, "camera": "door", "regions": []})),
        ),
        cross(
            "DELETE /device/delete_blur_regions",
            format!("device/delete_blur_regions?ids={}", b.devices.blur),
            None,
        ),
        cross(
            "GET /device/get_schedules",
            format!("device/get_schedules?device={bd}"),
            None,
        ),
        cross(
            "POST /device/add_schedules",
            "device/add_schedules",
            Some(
                json!({"device": bd, "camera": "door", "task": bt, "days": [1],
                "start": "08:00", "end": "09:00"}),
            ),
        ),
        cross(
            "POST /device/add_schedules",
            "device/add_schedules",
            Some(
                json!({"device": a_device, "camera": "door", "task": bt, "days": [1],
                "start": "08:00", "end": "09:00"}),
            ),
        )
        .or_unknown("task"),
        cross(
            "PATCH /device/schedules/{id}",
            format!("device/schedules/{}", b.devices.schedule),
            Some(json!({"start": "00:00"})),
        ),
        cross(
            "DELETE /device/schedules/{id}",
            format!("device/schedules/{}", b.devices.schedule),
            None,
        ),
        cross(
            "GET /organization/get_screenshot",
            format!("organization/get_screenshot?device={bd}&camera=door"),
            None,
        ),
        cross(
            "GET /organization/get_screenshot_intervals",
            format!("organization/get_screenshot_intervals?device={bd}"),
            None,
        ),
        cross(
            "GET /organization/task/videos/{task_id}",
            format!("organization/task/videos/{bt}"),
            None,
        ),
        cross(
            "GET /organization/task/task_tags/{id}",
            format!("organization/task/task_tags/{bt}"),
            None,
        ),
        cross(
            "POST /organization/task_record/extract_video_metadata",
            "organization/task_record/extract_video_metadata",
            Some(json!({"task_record": b.video.video})),
        ),
        cross(
            "POST /organization/entity/",
            "organization/entity/",
            Some(json!({"task_record": b.video.video})),
        ),
        cross(
            "POST /generic/send_message_to_sqs/",
            "generic/send_message_to_sqs/",
            Some(json!({
                "queue": "trim_video",
                "video_id": b.video.video,
                "start_ms": 0,
                "end_ms": 500,
            })),
        ),
        cross(
            "POST /generic/send_message_to_sqs/",
            "generic/send_message_to_sqs/",
            Some(json!({"queue": "update_task", "task_id": bt, "changes": {"taskName": "Taken over"}})),
        ),
        cross(
            "POST /generic/send_message_to_sqs/",
            "generic/send_message_to_sqs/",
            Some(json!({"queue": "cloning_task", "task_id": bt, "task_name": "Copied out"})),
        ),
        cross(
            "POST /generic/send_message_to_sqs/",
            "generic/send_message_to_sqs/",
            Some(json!({"queue": "cloning_task", "task_id": a_task, "task_name": "Copied in", "organization": bo})),
        )
        .or_unknown("organization"),
        cross(
            "POST /generic/send_message_to_sqs/",
            "generic/send_message_to_sqs/",
            Some(json!({"queue": "sample_images_for_detector", "task_id": bt})),
        ),
        cross(
            "GET /generic/queue_message/{id}/",
            format!("generic/queue_message/{}/", b.queue_message),
            None,
        ),
        cross(
            "POST /organization/task/videos/{task_id}",
            format!("organization/task/videos/{bt}"),
            Some(json!({"file_name": "intruder.mp4", "size_bytes": 10})),
        ),
        cross(
            "POST /organization/task/videos/{task_id}/record/",
            format!("organization/task/videos/{bt}/record/"),
            Some(json!({"device": b.devices.device, "camera": "cam0", "seconds": 10})),
        ),
        cross(
            "GET /organization/task_record/{id}/",
            format!("organization/task_record/{}/", b.video.video),
            None,
        ),
        cross(
            "PUT /organization/task_record/{id}/content/",
            format!("organization/task_record/{}/content/", b.video.video),
            Some(json!({})),
        ),
        cross(
            "GET /organization/task_record/{id}/labels/",
            format!("organization/task_record/{}/labels/", b.video.video),
            None,
        ),
        cross(
            "PUT /organization/task_record/{id}/labels/",
            format!("organization/task_record/{}/labels/", b.video.video),
            Some(json!({"segments": []})),
        ),
        cross(
            "PATCH /organization/task_record/bulk_delete/",
            "organization/task_record/bulk_delete/",
            Some(json!({"ids": [b.video.video]})),
        )
        .or_unknown("ids"),
        cross(
            "PATCH /organization/task_record/{id}/",
            format!("organization/task_record/{}/", b.video.video),
            Some(json!({"file_name": "Taken over"})),
        ),
        cross(
            "PATCH /organization/task_record/{id}/",
            format!("organization/task_record/{}/", a_video),
            Some(json!({"tags": [b.video.tag]})),
        )
        .or_unknown("tags"),
        cross(
            "DELETE /organization/task_record/tags/{id}",
            format!("organization/task_record/tags/{}", b.video.tag),
            None,
        ),
        cross(
            "GET /organization/task_record/comments",
            format!(
                "organization/task_record/comments?entity_id={}",
                b.video.video
            ),
            None,
        ),
        cross(
            "POST /organization/task_record/comments",
            "organization/task_record/comments",
            Some(json!({"entity_id": b.video.video, "text": "Intruding"})),
        ),
        cross(
            "DELETE /organization/task_record/comments/{id}",
            format!("organization/task_record/comments/{}", b.video.comment),
            None,
        ),
        cross(
            "GET /organization/tag_time_stamp_videos_view",
            format!(
                "organization/tag_time_stamp_videos_view?task_record={}",
                b.video.video
            ),
            None,
        ),
        cross(
            "POST /organization/tag_time_stamp_videos_view",
            "organization/tag_time_stamp_videos_view",
            Some(json!({"task_record": b.video.video, "tag": b.video.tag, "time_ms": 100})),
        ),
        cross(
            "POST /organization/tag_time_stamp_videos_view",
            "organization/tag_time_stamp_videos_view",
            Some(json!({"task_record": a_video, "tag": b.video.tag, "time_ms": 100})),
        )
        .or_unknown("tag"),
        cross(
            "DELETE /organization/tag_time_stamp_video/{id}",
            format!("organization/tag_time_stamp_video/{}", b.video.time_tag),
            None,
        ),
        cross(
            "PATCH /device/{id}/",
            format!("device/{bd}/"),
            Some(json!({"display_name": "Taken over"})),
        ),
        cross("DELETE /device/{id}/", format!("device/{bd}/"), None),
        cross(
            "PATCH /device/update_device/{id}/",
            format!("device/update_device/{bd}/"),
            Some(json!({"display_name": "Taken over"})),
        ),
        cross(
            "PATCH /device/archive_device/{id}/",
            format!("device/archive_device/{bd}/"),
            Some(json!({})),
        ),
        cross(
            "GET /device/{org}/device_settings/{id}/",
            format!("device/{bo}/device_settings/{bd}/"),
            None,
        ),
        cross(
            "PATCH /device/{org}/device_settings_update/{id}/",
            format!("device/{bo}/device_settings_update/{bd}/"),
            Some(json!({"taken": true})),
        ),
        cross(
            "PATCH /device/{org}/update_organization_devices_settings/",
            format!("device/{bo}/update_organization_devices_settings/"),
            Some(json!({"taken": true})),
        ),
        cross(
            "GET /device/get_device_tasks/{id}",
            format!("device/get_device_tasks/{bd}"),
            None,
        ),
        cross(
            "POST /device/device_tasks_upsert/",
            "device/device_tasks_upsert/",
            Some(json!({"device": bd, "camera": "cam0", "task": bt})),
        ),
        cross(
            "POST /device/device_tasks_upsert/",
            "device/device_tasks_upsert/",
            Some(json!({"device": a_device, "camera": "cam0", "task": bt})),
        )
        .or_unknown("task"),
        cross(
            "POST /device/{id}/start_task/",
            format!("device/{bd}/start_task/"),
            Some(json!({"camera": "cam0", "task": bt})),
        ),
        cross(
            "POST /device/{id}/start_task/",
            format!("device/{a_device}/start_task/"),
            Some(json!({"camera": "cam0", "task": bt})),
        )
        .or_unknown("task"),
        cross(
            "POST /device/{id}/stop_task/",
            format!("device/{bd}/stop_task/"),
            Some(json!({"camera": "cam0"})),
        ),
        cross(
            "GET /device/{id}/commands/",
            format!("device/{bd}/commands/"),
            None,
        ),
        cross(
            "GET /device/get_device_tasks_association/",
            format!("device/get_device_tasks_association/?task={bt}&device={bd}"),
            None,
        ),
        cross(
            "GET /device/get_device_tasks_association/",
            format!("device/get_device_tasks_association/?task={bt}&device={a_device}"),
            None,
        ),
        cross(
            "POST /device/{id}/enrolment_code/",
            format!("device/{bd}/enrolment_code/"),
            None,
        ),
        cross(
            "POST /device/{id}/revoke/",
            format!("device/{bd}/revoke/"),
            None,
        ),
        cross(
            "POST /device/",
            "device/",
            Some(json!({"display_name": "Spy", "department": bdept})),
        )
        .or_unknown("department"),
    ]);
    v.extend([
        cross(
            "GET /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            None,
        ),
        cross(
            "PATCH /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            Some(json!({"taskName": "Taken over"})),
        ),
        cross(
            "PATCH /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            Some(json!({"starred": true})),
        ),
        cross(
            "PATCH /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            Some(json!({"is_deleted": true})),
        ),
        cross(
            "GET /organization/task/{id}/history/",
            format!("organization/task/{bt}/history/"),
            None,
        ),
        cross(
            "GET /organization/task_history/{id}/",
            format!("organization/task_history/{bt}/?history_id={bh}"),
            None,
        ),
        cross(
            "PATCH /organization/task/{id}/revert/",
            format!("organization/task/{bt}/revert/"),
            Some(json!({"history_id": bh})),
        ),
        cross(
            "POST /generic/clone_task/",
            "generic/clone_task/",
            Some(json!({"task": bt, "taskName": "Copied out"})),
        ),
        cross(
            "PATCH /generic/clone_task/",
            "generic/clone_task/",
            Some(json!({"task": bt, "taskName": "Copied out", "organization": a})),
        ),
        cross(
            "PATCH /generic/clone_task/",
            "generic/clone_task/",
            Some(json!({"task": a_task, "taskName": "Copied in", "organization": bo})),
        )
        .or_unknown("organization"),
        cross(
            "GET /organization/task/s3_objects/{id}/",
            format!("organization/task/s3_objects/{bt}/"),
            None,
        ),
        cross(
            "GET /organization/task/virtual_tasks/{id}/",
            format!("organization/task/virtual_tasks/{bt}/"),
            None,
        ),
        cross(
            "GET /organization/rectification_steps/",
            format!("organization/rectification_steps/?task={bt}"),
            None,
        ),
        cross(
            "POST /organization/rectification_steps/",
            "organization/rectification_steps/",
            Some(json!({"task": bt, "step": 0, "description": "Intruder"})),
        ),
        cross(
            "DELETE /organization/rectification_steps/",
            format!("organization/rectification_steps/?id={}", b.rectification),
            None,
        ),
        cross(
            "PUT /organization/train/stop/",
            "organization/train/stop/",
            Some(json!({"task": bt})),
        ),
        cross(
            "GET /organization/trained_task/{id}",
            format!("organization/trained_task/{bt}"),
            None,
        ),
        cross(
            "GET /organization/task/{id}/labelers/",
            format!("organization/task/{bt}/labelers/"),
            None,
        ),
        cross(
            "POST /organization/task/{id}/labelers/",
            format!("organization/task/{bt}/labelers/"),
            Some(json!({"email": "nobody@walk.test"})),
        ),
        cross(
            "DELETE /organization/task/{id}/labelers/{labeler}/",
            format!("organization/task/{bt}/labelers/1/"),
            None,
        ),
        cross(
            "GET /labeler/videos/{taskId}",
            format!("labeler/videos/{bt}"),
            None,
        ),
        cross(
            "GET /labeler/task_record/{id}/labels/",
            format!("labeler/task_record/{}/labels/", b.video.video),
            None,
        ),
        cross(
            "PUT /labeler/task_record/{id}/labels/",
            format!("labeler/task_record/{}/labels/", b.video.video),
            Some(json!({"segments": []})),
        ),
        cross(
            "PATCH /labeler/task/mark_propagations_as_reviewed",
            "labeler/task/mark_propagations_as_reviewed",
            Some(json!({"task": bt})),
        )
        .or_unknown("task"),
        cross(
            "PATCH /organization/task/mark_propagations_as_reviewed",
            "organization/task/mark_propagations_as_reviewed",
            Some(json!({"task": bt, "videos": [b.video.video]})),
        )
        .or_unknown("task"),
        cross(
            "PATCH /organization/task/delete_annotations",
            "organization/task/delete_annotations",
            Some(json!({"task": bt})),
        )
        .or_unknown("task"),
        cross(
            "GET /organization/task/annotations_check/{id}",
            format!("organization/task/annotations_check/{bt}"),
            None,
        ),
        cross(
            "GET /telemetry/fetch_cycles/v2",
            format!("telemetry/fetch_cycles/v2?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "POST /telemetry/fetch_cycles/",
            "telemetry/fetch_cycles/",
            Some(json!({"task": bt})),
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/unique_metadata_keys/",
            format!("telemetry/unique_metadata_keys/?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/top_five_percentile",
            format!("telemetry/top_five_percentile?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/trace/v2",
            format!("telemetry/trace/v2?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/trace/",
            format!("telemetry/trace/?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/trace/line/{id}",
            format!("telemetry/trace/line/{}", b.line),
            None,
        ),
        cross(
            "PATCH /telemetry/trace/line/{id}",
            format!("telemetry/trace/line/{}", b.line),
            Some(json!({"name": "Taken over"})),
        ),
        cross(
            "DELETE /telemetry/trace/line/{id}",
            format!("telemetry/trace/line/{}", b.line),
            None,
        ),
        cross(
            "GET /telemetry/line_stats",
            format!(
                "telemetry/line_stats?line={}&datetime_start=2026-11-01&\
                 datetime_end=2026-11-30",
                b.line
            ),
            None,
        ),
        cross(
            "GET /telemetry/trace/line_traceability/",
            format!(
                "telemetry/trace/line_traceability/?line={}&cycle_id=no-such-cycle",
                b.line
            ),
            None,
        ),
        cross(
            "POST /telemetry/trace/line/",
            "telemetry/trace/line/",
            Some(json!({"name": "B's stations", "stations": [{"task": bt, "device": b.devices.device}]})),
        )
        .or_unknown("stations"),
        cross(
            "GET /telemetry/issues",
            format!("telemetry/issues?task={bt}&datetime_start=2026-11-01&datetime_end=2026-11-30"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/device_events",
            format!(
                "telemetry/device_events?device={}&datetime_start=2026-11-01&\
                 datetime_end=2026-11-30",
                b.devices.device
            ),
            None,
        )
        .or_unknown("device"),
        cross(
            "POST /organization/assistant/",
            "organization/assistant/",
            Some(json!({"mode": "line_performance", "line": b.line,
                "datetime_start": "2026-11-01", "datetime_end": "2026-11-30"})),
        ),
        cross(
            "POST /organization/assistant/",
            "organization/assistant/",
            Some(json!({"mode": "station_performance", "task": bt,
                "datetime_start": "2026-11-01", "datetime_end": "2026-11-30"})),
        )
        .or_unknown("task"),
        cross(
            "DELETE /organization/assistant/documents/{id}/",
            format!("organization/assistant/documents/{}/", b.assistant_doc),
            None,
        ),
        cross(
            "GET /telemetry/tampering_requests/",
            format!("telemetry/tampering_requests/?organization={bo}"),
            None,
        ),
        cross(
            "PATCH /telemetry/tampering_requests/{id}/",
            format!("telemetry/tampering_requests/{}/", b.devices.tamper),
            Some(json!({"action": "dismiss", "note": "not ours"})),
        ),
        cross(
            "POST /telemetry/issues/review",
            "telemetry/issues/review",
            Some(json!({"task": bt, "key": "too_long",
                "datetime_start": "2026-11-01", "datetime_end": "2026-11-30"})),
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/archive_cycle/",
            format!("telemetry/archive_cycle/?organization={bo}"),
            None,
        )
        .or_unknown("organization"),
        cross(
            "GET /telemetry/cycle_stats",
            format!(
                "telemetry/cycle_stats?task={bt}&datetime_start=2026-11-01&\
                 datetime_end=2026-11-30"
            ),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /organization/model_version",
            format!("organization/model_version?task={bt}"),
            None,
        ),
        cross(
            "POST /organization/model_version",
            "organization/model_version",
            Some(json!({"task": bt, "model_file": UNKNOWN_ID})),
        )
        .or_unknown("task"),
        // Service tokens are the super admin's alone, B's included.
        cross(
            "POST /generic/userpool/",
            "generic/userpool/",
            Some(json!({"name": "Into B", "organization": bo, "role": "org_admin",
                "expires_in_days": 30})),
        ),
        cross(
            "DELETE /generic/userpool/{id}/",
            format!("generic/userpool/{UNKNOWN_ID}/"),
            None,
        ),
        // Releases are the platform's and the super admin's alone.
        cross(
            "GET /binary_deployment/{id}/latest_deployment/",
            format!("binary_deployment/{UNKNOWN_ID}/latest_deployment/"),
            None,
        ),
        cross(
            "PATCH /binary_deployment/{id}/",
            format!("binary_deployment/{UNKNOWN_ID}/"),
            Some(json!({"currentState": "stopped"})),
        ),
        cross(
            "DELETE /binary_deployment/delete_branch/",
            format!("binary_deployment/delete_branch/?environment=dev&branch=main&id={UNKNOWN_ID}"),
            None,
        ),
        cross(
            "PATCH /device/{id}/update_channel/",
            format!("device/{}/update_channel/", b.devices.device),
            Some(json!({"update_channel": "dev"})),
        ),
        cross(
            "POST /device/set_fetch_analytics/{id}/",
            format!("device/set_fetch_analytics/{}/", b.devices.device),
            Some(json!({"fetch_analytics": false})),
        ),
        // Model types and files are the platform's, not B's: reading one is no leak;
        // changing them is the super admin's alone.
        cross(
            "GET /organization/model_types/{id}",
            format!("organization/model_types/{}", wa.model_type),
            None,
        )
        .platform(),
        cross(
            "POST /organization/model_types",
            "organization/model_types",
            Some(
                json!({"name": "Tenant type", "input_width": 32, "input_height": 24,
                "hidden": 8}),
            ),
        ),
        cross(
            "PATCH /organization/model_type/{id}",
            format!("organization/model_type/{}", wa.model_type),
            Some(json!({"name": "Taken over"})),
        ),
        cross(
            "POST /organization/model_files",
            format!("organization/model_files?model_type={}", wa.model_type),
            Some(json!({})),
        ),
        cross(
            "PATCH /organization/model_files",
            format!("organization/model_files?ids={UNKNOWN_ID}"),
            Some(json!({"model_type": wa.model_type})),
        ),
        cross(
            "DELETE /organization/model_files",
            format!("organization/model_files?ids={UNKNOWN_ID}"),
            None,
        ),
        cross(
            "GET /organization/model_version/{id}",
            format!("organization/model_version/{}", b.video.model),
            None,
        ),
        cross(
            "PATCH /organization/model_version/{id}",
            format!("organization/model_version/{}", b.video.model),
            Some(json!({"is_deleted": true})),
        ),
        cross(
            "POST /organization/model_version/{id}/deploy/",
            format!("organization/model_version/{}/deploy/", b.video.model),
            Some(json!({"devices": [b.devices.device]})),
        ),
        cross(
            "GET /organization/deployments/",
            format!("organization/deployments/?model_version={}", b.video.model),
            None,
        ),
        cross(
            "PATCH /organization/trained_task/{id}",
            format!("organization/trained_task/{bt}"),
            Some(json!({"train_status": "training"})),
        ),
        cross(
            "PATCH /organization/task/last_update/{id}",
            format!("organization/task/last_update/{bt}"),
            Some(json!({})),
        ),
        cross(
            "GET /organization/tasks/admin",
            format!("organization/tasks/admin?organization={bo}"),
            None,
        ),
    ]);
    let d = b.detector;
    let square = json!([[0, 0], [1, 0], [1, 1]]);
    v.extend([
        cross(
            "GET /organization/task/list_task_objects/{id}/",
            format!("organization/task/list_task_objects/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/task/task_object/",
            "organization/task/task_object/",
            Some(json!({"task": bt, "name": "Planted"})),
        ),
        cross(
            "PATCH /organization/task/task_object/{id}/",
            format!("organization/task/task_object/{}/", d.object),
            Some(json!({"name": "Taken"})),
        ),
        cross(
            "DELETE /organization/task/task_object/{id}/",
            format!("organization/task/task_object/{}/", d.object),
            None,
        ),
        cross(
            "GET /organization/task/list_plane_objects/{id}/",
            format!("organization/task/list_plane_objects/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/task/plane_objects/",
            "organization/task/plane_objects/",
            Some(json!({"task": bt, "name": "Planted", "points": square})),
        ),
        cross(
            "PUT /organization/task/plane_objects/{id}/",
            format!("organization/task/plane_objects/{}/", d.plane),
            Some(json!({"name": "Taken", "points": square})),
        ),
        cross(
            "DELETE /organization/task/plane_objects/{id}/",
            format!("organization/task/plane_objects/{}/", d.plane),
            None,
        ),
        cross(
            "GET /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{bt}/"),
            Some(json!({"step": 0})),
        ),
        cross(
            "PATCH /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{}/", d.rule),
            Some(json!({"verify": true})),
        ),
        cross(
            "DELETE /organization/task/object_detection_rule/delete/",
            format!(
                "organization/task/object_detection_rule/delete/?id={}",
                d.rule
            ),
            None,
        ),
        cross(
            "PATCH /organization/task/object_detection_rule/bulk_delete",
            "organization/task/object_detection_rule/bulk_delete",
            Some(json!({"ids": [d.rule]})),
        ),
        cross(
            "GET /generic/list_region_json/{id}/",
            format!("generic/list_region_json/{bt}/"),
            None,
        ),
        cross(
            "PATCH /generic/list_region_json/{id}/",
            format!("generic/list_region_json/{bt}/"),
            Some(json!({"region_json": {"taken": true}})),
        ),
    ]);
    // A's own rule with B's object: the object is unknown to A's task.
    v.push(
        cross(
            "PATCH /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{}/", a_rule),
            Some(json!({"static_object": [d.object]})),
        )
        .or_unknown("static_object"),
    );
    v.push(
        cross(
            "PATCH /organization/task/{id}/revert/",
            format!("organization/task/{a_task}/revert/"),
            Some(json!({"history_id": bh})),
        )
        .or_unknown("history_id"),
    );
    for body in [
        json!({"recipients": ["intruder@a.test"]}),
        json!({"Organization": a}),
        json!({"event_type": "Task Update", "Organization": bo}),
    ] {
        v.push(cross(
            "PATCH /feature_control/event_notification/{id}",
            format!("feature_control/event_notification/{}", b.notification),
            Some(body),
        ));
    }
    // Validation: B's group, video and run; A's video or B's model into B's group.
    let bv = b.validation;
    v.extend([
        cross(
            "DELETE /organization/validation-groups/{id}/",
            format!("organization/validation-groups/{}/", bv.group),
            None,
        ),
        cross(
            "POST /organization/validation-groups/",
            "organization/validation-groups/",
            Some(json!({"name": "Intruders", "task": b.task})),
        )
        .or_unknown("task"),
        cross(
            "GET /organization/validation-videos/retrieve/",
            format!(
                "organization/validation-videos/retrieve/?group_id={}",
                bv.group
            ),
            None,
        ),
        cross(
            "PATCH /organization/validation-videos/{id}/",
            format!("organization/validation-videos/{}/", bv.video),
            Some(json!({"name": "Taken"})),
        ),
        cross(
            "PUT /organization/validation-videos/add-video-to-group/",
            "organization/validation-videos/add-video-to-group/",
            Some(json!({"group_id": bv.group, "videos": [a_video]})),
        )
        .or_unknown("group_id"),
        cross(
            "POST /organization/validation-runs/",
            "organization/validation-runs/",
            Some(json!({"group_id": bv.group, "model_version": bv.model})),
        )
        .or_unknown("group_id"),
        cross(
            "GET /organization/validation-runs/{id}/",
            format!("organization/validation-runs/{}/", bv.run),
            None,
        ),
        cross(
            "GET /organization/validation-runs-videos/{id}/",
            format!("organization/validation-runs-videos/{}/", bv.run),
            None,
        ),
        cross(
            "GET /websocket_inference/validation_record/group/{id}/",
            format!("websocket_inference/validation_record/group/{}/", bv.group),
            None,
        ),
        cross(
            "POST /websocket_inference/validation_records_from_trace/",
            "websocket_inference/validation_records_from_trace/",
            Some(json!({"group_id": bv.group, "cycles": ["walk"]})),
        )
        .or_unknown("group_id"),
        cross(
            "POST /websocket_inference/validation_record/{id}/",
            format!("websocket_inference/validation_record/{}/", bv.video),
            Some(json!({"segments": []})),
        ),
        cross(
            "DELETE /websocket_inference/validation_record/{id}/",
            format!("websocket_inference/validation_record/{}/", bv.video),
            None,
        ),
    ]);
    // Annotation images and boxes: B's task, video, image, objects and plane; A's
    // task with B's object and plane.
    let bi = b.annotation;
    v.extend([
        cross(
            "POST /organization/task/annotation_image/",
            "organization/task/annotation_image/",
            Some(json!({"video": b.video.video, "frame_ms": 0})),
        ),
        cross(
            "GET /organization/task/annotation_image_list/{task}/",
            format!("organization/task/annotation_image_list/{bt}/?page_size=100"),
            None,
        ),
        cross(
            "GET /organization/task/fetch_all_annotation_image_list/{task}",
            format!("organization/task/fetch_all_annotation_image_list/{bt}"),
            None,
        ),
        cross(
            "GET /organization/task/projector_annotation_image_list/{task}/",
            format!("organization/task/projector_annotation_image_list/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/annotation_image/get_static_image/",
            "organization/annotation_image/get_static_image/",
            Some(json!({"task": bt})),
        ),
        cross(
            "POST /organization/task/fetch_annotation_ids_object/",
            "organization/task/fetch_annotation_ids_object/",
            Some(json!({"task": bt, "task_object": d.object})),
        ),
        cross(
            "POST /organization/task/fetch_annotation_ids_object/",
            "organization/task/fetch_annotation_ids_object/",
            Some(json!({"task": a_task, "task_object": d.object})),
        ),
        cross(
            "PATCH /organization/task/task_object/update_delete",
            "organization/task/task_object/update_delete",
            Some(json!({"image": bi, "objects": []})),
        ),
        cross(
            "DELETE /organization/task/task_object/update_delete",
            "organization/task/task_object/update_delete",
            Some(json!({"image": bi, "ids": [1]})),
        ),
        cross(
            "POST /generic/revert_object_list/",
            "generic/revert_object_list/",
            Some(json!({"image": bi})),
        ),
        cross(
            "POST /organization/task/upload_thumbnail/",
            "organization/task/upload_thumbnail/",
            Some(json!({"video": b.video.video, "frame_ms": 0})),
        ),
        cross(
            "POST /organization/task/merge_video_sequences/",
            "organization/task/merge_video_sequences/",
            Some(json!({"task": bt, "videos": [b.video.video, a_video]})),
        ),
        cross(
            "POST /organization/task/merge_video_sequences/",
            "organization/task/merge_video_sequences/",
            Some(json!({"task": a_task, "videos": [b.video.video, a_video]})),
        ),
        cross(
            "PATCH /organization/annotations/bulk-delete/",
            "organization/annotations/bulk-delete/",
            Some(json!({"task": bt, "ids": [bi]})),
        ),
        cross(
            "PATCH /organization/annotations/bulk-delete/",
            "organization/annotations/bulk-delete/",
            Some(json!({"task": a_task, "ids": [bi]})),
        ),
        cross(
            "GET /organization/task/is_3d/{id}/",
            format!("organization/task/is_3d/{bt}/"),
            None,
        ),
        cross(
            "GET /organization/task/depth_frame/{id}/",
            format!("organization/task/depth_frame/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/task/depth_frame/{id}/",
            format!("organization/task/depth_frame/{bt}/"),
            None,
        ),
        cross(
            "GET /organization/task/zero_depth_pixel/{id}/",
            format!("organization/task/zero_depth_pixel/{bt}/"),
            None,
        ),
        cross(
            "PUT /organization/task/reset_plane_objects/{id}/",
            format!("organization/task/reset_plane_objects/{bt}/"),
            None,
        ),
        cross(
            "PUT /organization/task/calculate_plane_object_equation/{id}/",
            format!(
                "organization/task/calculate_plane_object_equation/{}/",
                d.plane
            ),
            None,
        ),
        cross(
            "GET /organization/task/get_overlay_frame/{id}/",
            format!(
                "organization/task/get_overlay_frame/{bt}/?plane_id={}",
                d.plane
            ),
            None,
        ),
        cross(
            "GET /organization/task/get_overlay_frame/{id}/",
            format!(
                "organization/task/get_overlay_frame/{a_task}/?plane_id={}",
                d.plane
            ),
            None,
        ),
        cross(
            "PUT /generic/update_projector_region/",
            "generic/update_projector_region/",
            Some(json!({"task": bt})),
        ),
        cross(
            "PATCH /generic/copy_projector_media/",
            "generic/copy_projector_media/",
            Some(json!({"task": bt})),
        ),
    ]);
    // Files: B's bucket and file by name; each organisation's buckets are its own, so
    // A finds nothing there.
    let (fb, fp) = crate::files::TENANT_FILE;
    let bf = json!({"bucket_name": fb, "object_path": fp});
    let folder = json!({"bucket_name": fb, "folder": ""});
    v.extend([
        cross(
            "POST /generic/file_read/",
            "generic/file_read/",
            Some(bf.clone()),
        ),
        cross(
            "POST /generic/file_delete/",
            "generic/file_delete/",
            Some(bf),
        ),
        cross(
            "POST /generic/get_bucket_folder_zip/",
            "generic/get_bucket_folder_zip/",
            Some(folder.clone()),
        ),
        cross(
            "POST /generic/get_bucket_folder_presigned_url/",
            "generic/get_bucket_folder_presigned_url/",
            Some(folder),
        ),
    ]);
    // Barcodes: B's organisation, barcodes and associations, and A's task with B's
    // barcode.
    let bb = b.barcodes;
    v.extend([
        cross(
            "GET /account/barcode/{id}",
            format!("account/barcode/{bo}"),
            None,
        ),
        cross(
            "POST /account/barcode/{id}",
            format!("account/barcode/{bo}"),
            None,
        ),
        cross(
            "DELETE /account/barcode/{id}",
            format!("account/barcode/{}", bb.doomed),
            None,
        ),
        cross(
            "PUT /account/create_custom_barcode/",
            "account/create_custom_barcode/",
            Some(json!({"barcode_value": "intruder", "organization": bo})),
        )
        .or_unknown("organization"),
        cross(
            "PATCH /account/update_barcode_value/",
            "account/update_barcode_value/",
            Some(json!({"id": bb.barcode, "barcode_value": "intruder"})),
        ),
        cross(
            "GET /account/associate_barcode/",
            format!("account/associate_barcode/?task={}", b.task),
            None,
        ),
        cross(
            "POST /account/associate_barcode/",
            "account/associate_barcode/",
            Some(json!({"task": a_task, "barcode_id": bb.free})),
        )
        .or_unknown("barcode_id"),
        cross(
            "POST /account/associate_barcode/",
            "account/associate_barcode/",
            Some(json!({"task": b.task, "barcode_id": wa.barcodes.free})),
        )
        .or_unknown("task"),
        cross(
            "PATCH /account/associate_barcode/{id}/",
            format!("account/associate_barcode/{}/", bb.association),
            Some(json!({"task": a_task})),
        ),
        cross(
            "PATCH /account/associate_barcode/{id}/",
            format!("account/associate_barcode/{}/", wa.barcodes.association),
            Some(json!({"barcode_id": bb.free})),
        )
        .or_unknown("barcode_id"),
        cross(
            "DELETE /account/associate_barcode/{id}/",
            format!("account/associate_barcode/{}/", bb.doomed_association),
            None,
        ),
    ]);
    for (uid, org) in [(bu.id, bo), (bu.id, a), (me.id, bo)] {
        v.push(cross(
            "PATCH /organization/organization-switch/{id}/",
            format!("organization/organization-switch/{uid}/"),
            Some(json!({"organization": org})),
        ));
    }
    for uid in [bu.id, b.shared] {
        v.push(cross(
            "GET /account/linked_organizations/",
            format!("account/linked_organizations/?user_id={uid}"),
            None,
        ));
        v.push(cross(
            "DELETE /account/delete_linked_organizations",
            format!("account/delete_linked_organizations?user_id={uid}&organization={bo}"),
            None,
        ));
        v.push(cross(
            "PATCH /account/admin-verification-email/{id}/",
            format!("account/admin-verification-email/{uid}/"),
            Some(json!({"is_email_verified": false})),
        ));
        v.push(cross(
            "PATCH /account/update-delete/{id}/",
            format!("account/update-delete/{uid}/"),
            Some(json!({"terms_and_conditions_accepted": true})),
        ));
    }
    for uid in [b.admin, b.ws, bu.id, b.shared] {
        v.push(cross(
            "DELETE /account/update-delete/{id}/",
            format!("account/update-delete/{uid}/"),
            None,
        ));
    }
    for uid in [b.ws, b.shared] {
        v.push(cross(
            "PATCH /account/reset_workstation_user_password/",
            "account/reset_workstation_user_password/",
            Some(json!({"user": uid, "password": "taken-over-1"})),
        ));
    }
    v
}
