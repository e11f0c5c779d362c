//! The role matrix's table: every call of the server and the permission it needs. One
//! table of every call, long by design: split, a call would be easy to miss.

use gemba_shared::Permission;
use serde_json::json;

use super::requests::{Call, Need, UNKNOWN_ID, call};
use super::world::{Me, World};
use crate::common::*;

/// Every call of the server, as `me` makes it. Calls that end the session come last.
pub(super) fn matrix(w: &World, me: &Me) -> Vec<Call> {
    use Need::*;
    use Permission::*;
    let r = me.role.as_str();
    let own = json!({"email": me.email, "password": me.password});
    vec![
        // Public.
        call("GET /health", None, Public),
        call("GET /privacy_policy/", None, Public),
        call(
            "POST /csp-report",
            Some(json!({"csp-report": {
                "document-uri": "http://localhost/walk",
                "violated-directive": "img-src",
                "blocked-uri": "https://elsewhere.test/p.png",
            }})),
            Public,
        ),
        call("POST /account/login_v2", Some(own.clone()), Public),
        call("POST /account/admin-login/", Some(own), Public),
        call(
            "POST /account/token/refresh/",
            Some(json!({"refresh": me.refresh})),
            Public,
        ),
        call("POST /account/azure-signin/", Some(json!({})), Public),
        call("POST /account/azure-signup/", Some(json!({})), Public),
        call("POST /account/google-sso/", Some(json!({})), Public),
        call(
            "POST /account/refresh-azure-token/",
            Some(json!({"access_token": "x"})),
            Public,
        ),
        call(
            "POST /account/register_for_aws_subscription",
            Some(json!({})),
            Public,
        ),
        call(
            "POST /account/register",
            Some(json!({"name": "Walk", "email": me.email, "password": PASSWORD})),
            Public,
        ),
        call("PATCH /account/verify-email/{token}", None, Public)
            .at("account/verify-email/not-a-token"),
        call(
            "POST /account/resend-verification-email",
            Some(json!({"email": me.email})),
            Public,
        ),
        call(
            "POST /account/admin-verification-email",
            Some(json!({"email": me.email})),
            Public,
        ),
        call(
            "PATCH /account/forgot_password/",
            Some(json!({"email": "nobody@walk.test"})),
            Public,
        ),
        call(
            "PATCH /account/reset_password/",
            Some(json!({"token": "not-a-token", "password": PASSWORD})),
            Public,
        ),
        call(
            "PATCH /account/verify-email-change/",
            Some(json!({"token": "not-a-token"})),
            Public,
        ),
        // The second factor.
        call("GET /account/send_otp_code/", None, Pending),
        call("GET /account/resend_otp/", None, Pending),
        call("PATCH /account/set_mfa_method_email/", None, Pending),
        call(
            "PATCH /account/set_mfa_method_sms/",
            Some(json!({"mobile_number": "not a number"})),
            Pending,
        ),
        call(
            "POST /account/set_mfa_method_sms/",
            Some(json!({"mobile_number": "not a number"})),
            Pending,
        ),
        call("PATCH /account/get_qr_code/", None, Pending),
        call(
            "PATCH /account/set_mfa_method_authenticator_app/",
            Some(json!({"otp": "abc"})),
            Pending,
        ),
        call(
            "POST /account/verify_otp_code/",
            Some(json!({"otp": "abc"})),
            Pending,
        ),
        // One's own account.
        call("GET /account/fetch_local_storage_data", None, SignedIn),
        call(
            "PATCH /account/switch_user_organization",
            Some(json!({"organization": w.org_a, "local_storage": {"walk": r}})),
            SignedIn,
        ),
        call(
            "PATCH /organization/organization-switch",
            Some(json!({"organization": w.org_a})),
            SignedIn,
        ),
        call("GET /account/roles/", None, SignedIn),
        call("GET /account/linked_organizations/", None, SignedIn),
        call(
            "PATCH /account/update-delete/{id}/",
            Some(json!({"terms_and_conditions_accepted": true})),
            SignedIn,
        )
        .at(format!("account/update-delete/{}/", me.id)),
        call(
            "POST /account/session/create/",
            Some(json!({"user": me.id, "browser": "walk", "browser_version": "2"})),
            SignedIn,
        ),
        call("PATCH /account/session/update/{id}/", None, SignedIn)
            .at(format!("account/session/update/{}/", me.activity)),
        call("GET /account/retrieve-session/", None, SignedIn).at(format!(
            "account/retrieve-session/?email={}&sessionKey={}",
            me.email, me.session_key
        )),
        call(
            "PATCH /account/request_change_password/",
            Some(json!({"old_password": "not-my-pass-1", "new_password": "other-pass-2"})),
            SignedIn,
        ),
        call(
            "POST /account/request_change_email/",
            Some(json!({"email": format!("new-{r}@walk.test"), "password": "not-my-pass-1"})),
            SignedIn,
        ),
        // By permission.
        call("GET /account/get-permissions/", None, Perm(AdminArea)),
        call("GET /organization/", None, Perm(ViewOrganizations)),
        call(
            "GET /organization/get_organizations",
            None,
            Perm(ManageOrganizations),
        )
        .at("organization/get_organizations?page=1&search=a"),
        call("GET /organization/audit_log/", None, Perm(ReadAuditLog))
            .at("organization/audit_log/?page=1&page_size=5"),
        call(
            "POST /organization/",
            Some(json!({"org_name_to_display": format!("Made by {r}")})),
            Perm(ManageOrganizations),
        ),
        call(
            "PATCH /organization/{id}/",
            Some(json!({"use_proxy_server": false})),
            Perm(ManageOrganizations),
        )
        .at(format!("organization/{}/", w.org_a)),
        call(
            "DELETE /organization/{id}/",
            None,
            Perm(ManageOrganizations),
        )
        .at(format!("organization/{}/", w.doomed)),
        // A labeler belongs to no organisation: A's departments are hidden from it.
        call(
            "GET /organization/{id}/department/",
            None,
            Perm(ViewOrganizations),
        )
        .at(format!("organization/{}/department/", w.org_a))
        .hiding(),
        call(
            "POST /organization/{id}/department/",
            Some(json!({"name": format!("Made by {r}")})),
            Perm(ManageDepartments),
        )
        .at(format!("organization/{}/department/", w.org_a))
        .hiding(),
        call(
            "PATCH /organization/organization-switch/{id}/",
            Some(json!({"organization": w.org_a})),
            Perm(ManageLinkedOrganizations),
        )
        .at(format!("organization/organization-switch/{}/", w.ws)),
        call(
            "GET /account/linked_organizations/",
            None,
            Perm(ManageLinkedOrganizations),
        )
        .at(format!("account/linked_organizations/?user_id={}", w.ws)),
        call(
            "POST /account/linked_organizations",
            Some(json!({"user_id": w.ws, "organization": w.org_a})),
            Perm(ManageLinkedOrganizations),
        ),
        call(
            "DELETE /account/delete_linked_organizations",
            None,
            Perm(ManageLinkedOrganizations),
        )
        .at(format!(
            "account/delete_linked_organizations?user_id={}&organization={}",
            w.linked, w.other_org
        )),
        call("GET /account/users_list/v2", None, Perm(ViewOrgUsers))
            .at("account/users_list/v2?page=1"),
        call("GET /account/users_list/v2", None, Perm(ManageAllUsers))
            .at("account/users_list/v2?is_admin=true&is_active=false"),
        call("GET /account/users_list", None, Perm(ViewOrgUsers)),
        call("GET /account/users_list", None, Perm(ManageAllUsers))
            .at("account/users_list?is_admin=true"),
        call("GET /account/linked_users_list/", None, Perm(ViewOrgUsers)).at(format!(
            "account/linked_users_list/?organization={}",
            w.org_a
        )),
        call(
            "POST /account/roles/",
            Some(json!({"name": "admin"})),
            Perm(ManageRoles),
        ),
        call(
            "PUT /account/approve_user",
            Some(json!({"email": w.pending_email, "roleId": w.user_role})),
            Perm(ApproveUsers),
        ),
        call(
            "PUT /account/assign_user_org",
            Some(json!({"email": w.pending_email, "organization": w.org_a})),
            Perm(ApproveUsers),
        ),
        call(
            "PATCH /account/admin-verification-email/{id}/",
            Some(json!({"is_email_verified": true})),
            Perm(ManageAllUsers),
        )
        .at(format!(
            "account/admin-verification-email/{}/",
            w.pending_id
        )),
        call(
            "GET /account/lockout_list-delete/",
            None,
            Perm(ManageLockouts),
        ),
        call(
            "DELETE /account/lockout_list-delete/",
            None,
            Perm(ManageLockouts),
        )
        .at(format!("account/lockout_list-delete/?user={}", w.locked)),
        call(
            "PATCH /account/reset_workstation_user_password/",
            Some(json!({"user": w.ws, "password": "walk-pass-9"})),
            Perm(ManageOrgUsers),
        ),
        call(
            "DELETE /account/update-delete/{id}/",
            None,
            Perm(ManageOrgUsers),
        )
        .at(format!("account/update-delete/{}/", me.victim)),
        call("GET /admin/outbox/", None, Perm(ReadOutbox)).at("admin/outbox/?limit=5"),
        // The super admin's reports (issue 31).
        call("GET /admin/user-report/", None, Perm(AdminArea))
            .at("admin/user-report/?ordering=-time&page_size=5"),
        call("GET /admin/user-report/csv/", None, Perm(AdminArea)),
        call("GET /admin/labelers/", None, Perm(AdminArea)),
        call("GET /admin/annotations/", None, Perm(AdminArea))
            .at(format!("admin/annotations/?organization={}", w.org_a)),
        // Feature control.
        call("GET /feature_control/feature/", None, Perm(ViewFeatures)),
        call(
            "POST /feature_control/feature/",
            Some(json!({"name": format!("Walk feature {r}")})),
            Perm(ManageFeatures),
        ),
        call(
            "DELETE /feature_control/feature/",
            None,
            Perm(ManageFeatures),
        )
        .at(format!("feature_control/feature/?id={}", w.doomed_feature)),
        call(
            "GET /feature_control/subscribed_feature/",
            None,
            Perm(ViewFeatures),
        ),
        call(
            "POST /feature_control/subscribed_feature/",
            Some(json!({"Feature": w.feature, "Organization": w.org_a})),
            Perm(ManageFeatures),
        ),
        call(
            "DELETE /feature_control/subscribed_feature/",
            None,
            Perm(ManageFeatures),
        )
        .at(format!(
            "feature_control/subscribed_feature/?id={}",
            w.subscription
        )),
        call(
            "GET /feature_control/event_notifications",
            None,
            Perm(ManageEventNotifications),
        ),
        call(
            "GET /feature_control/event_notification/{id}",
            None,
            Perm(ManageEventNotifications),
        )
        .at(format!(
            "feature_control/event_notification/{}",
            w.notification
        )),
        call(
            "PATCH /feature_control/event_notification/{id}",
            Some(json!({"recipients": [format!("{r}@walk.test")]})),
            Perm(ManageEventNotifications),
        )
        .at(format!(
            "feature_control/event_notification/{}",
            w.notification
        )),
        call(
            "GET /feature_control/get_event_notification/{org}/{event}",
            None,
            Perm(ManageEventNotifications),
        )
        .at(format!(
            "feature_control/get_event_notification/{}/Task%20Update",
            w.org_a
        )),
        call(
            "DELETE /feature_control/event_notification/{id}",
            None,
            Perm(ManageEventNotifications),
        )
        .at(format!(
            "feature_control/event_notification/{}",
            w.doomed_notification
        )),
        call(
            "POST /feature_control/event_notifications",
            Some(json!({
                "event_type": "Task Update",
                "recipients": [format!("{r}@walk.test")],
                "Organization": w.other_org,
            })),
            Perm(ManageEventNotifications),
        ),
        // Barcodes (the admin Barcode screen's).
        call("GET /account/barcode/{id}", None, Perm(AdminArea))
            .at(format!("account/barcode/{}", w.org_a)),
        call("POST /account/barcode/{id}", None, Perm(AdminArea))
            .at(format!("account/barcode/{}", w.org_a)),
        call(
            "PUT /account/create_custom_barcode/",
            Some(json!({"barcode_value": format!("walk-{r}"), "organization": w.org_a})),
            Perm(AdminArea),
        ),
        call(
            "PATCH /account/update_barcode_value/",
            Some(json!({"id": w.barcodes.barcode, "barcode_value": format!("walk-v-{r}")})),
            Perm(AdminArea),
        ),
        call("GET /account/associate_barcode/", None, Perm(AdminArea))
            .at(format!("account/associate_barcode/?task={}", w.task)),
        call(
            "POST /account/associate_barcode/",
            Some(json!({"task": w.task, "barcode_id": w.barcodes.free})),
            Perm(AdminArea),
        ),
        call(
            "PATCH /account/associate_barcode/{id}/",
            Some(json!({"task": w.task})),
            Perm(AdminArea),
        )
        .at(format!(
            "account/associate_barcode/{}/",
            w.barcodes.association
        )),
        call(
            "DELETE /account/associate_barcode/{id}/",
            None,
            Perm(AdminArea),
        )
        .at(format!(
            "account/associate_barcode/{}/",
            w.barcodes.doomed_association
        )),
        call("DELETE /account/barcode/{id}", None, Perm(AdminArea))
            .at(format!("account/barcode/{}", w.barcodes.doomed)),
        call(
            "POST /feature_control/send_email",
            Some(json!({
                "recipients": [me.email.clone()],
                "subject": "Walk",
                "body": "Sent by the role walk.",
            })),
            Perm(SendEmail),
        ),
        // Tasks.
        call("GET /organization/task/", None, Perm(ViewTasks)),
        call("GET /organization/task/taskpage", None, Perm(ViewTasks))
            .at("organization/task/taskpage?page=1&search=walk"),
        call("GET /organization/tasks/admin", None, Perm(AdminArea))
            .at(format!("organization/tasks/admin?organization={}", w.org_a)),
        call(
            "GET /organization/task/get_all_trained_tasks_of_organization",
            None,
            Perm(ViewTasks),
        ),
        call(
            "GET /organization/task/model_choices",
            None,
            Perm(ViewTasks),
        ),
        call(
            "POST /organization/task/",
            Some(json!({"taskName": format!("Walk task {r}"), "task_detail": "x\nA:\na;\n"})),
            Perm(ManageTasks),
        ),
        call("GET /organization/task/{id}/", None, Perm(ViewTasks))
            .at(format!("organization/task/{}/", w.task)),
        call(
            "PATCH /organization/task/{id}/",
            Some(json!({"stepsAvgTime": {"walked_by": r}})),
            Perm(ManageTasks),
        )
        .at(format!("organization/task/{}/", w.task)),
        call(
            "POST /organization/task/extract_task_from_doc/",
            Some(json!({})),
            Perm(ManageTasks),
        )
        .at("organization/task/extract_task_from_doc/?name=walk.txt"),
        call(
            "POST /generic/clone_task/",
            Some(json!({"task": w.task, "taskName": format!("Walk clone {r}")})),
            Perm(ManageTasks),
        ),
        call(
            "PATCH /generic/clone_task/",
            Some(json!({
                "task": w.task,
                "taskName": format!("Walk copy {r}"),
                "organization": w.org_a,
            })),
            Perm(ManageTasks),
        ),
        call(
            "GET /organization/task/s3_objects/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/task/s3_objects/{}/", w.task)),
        call(
            "GET /organization/task/virtual_tasks/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/task/virtual_tasks/{}/", w.task)),
        call(
            "GET /organization/rectification_steps/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/rectification_steps/?task={}", w.task)),
        call(
            "POST /organization/rectification_steps/",
            Some(json!({"task": w.task, "step": 0, "description": format!("Walk back {r}")})),
            Perm(ManageTasks),
        ),
        call(
            "DELETE /organization/rectification_steps/",
            None,
            Perm(ManageTasks),
        )
        .at(format!("organization/rectification_steps/?id={UNKNOWN_ID}")),
        call(
            "GET /organization/task/{id}/history/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/task/{}/history/", w.task)),
        call(
            "GET /organization/task_history/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!(
            "organization/task_history/{}/?history_id={}",
            w.task, w.task_history
        )),
        call(
            "PATCH /organization/task/{id}/revert/",
            Some(json!({"history_id": w.task_history})),
            Perm(ManageTasks),
        )
        .at(format!("organization/task/{}/revert/", w.task)),
        call(
            "PUT /organization/train/stop/",
            Some(json!({"task": w.task})),
            Perm(ManageTasks),
        ),
        call("GET /organization/trained_task/{id}", None, Perm(ViewTasks))
            .at(format!("organization/trained_task/{}", w.task)),
        call(
            "GET /organization/task/{id}/labelers/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/task/{}/labelers/", w.task)),
        // Not a labeler's address (400), and a labeler never requested (404): the
        // permission is what is walked.
        call(
            "POST /organization/task/{id}/labelers/",
            Some(json!({"email": "nobody@walk.test"})),
            Perm(ManageTasks),
        )
        .at(format!("organization/task/{}/labelers/", w.task)),
        call(
            "DELETE /organization/task/{id}/labelers/{labeler}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!("organization/task/{}/labelers/999999/", w.task)),
        call("GET /labeler/tasks/", None, Perm(LabelRequested)),
        call("GET /labeler/videos/{taskId}", None, Perm(LabelRequested))
            .at(format!("labeler/videos/{}", w.task)),
        call(
            "GET /labeler/task_record/{id}/labels/",
            None,
            Perm(LabelRequested),
        )
        .at(format!("labeler/task_record/{}/labels/", w.video.video)),
        call(
            "PUT /labeler/task_record/{id}/labels/",
            Some(json!({"segments": []})),
            Perm(LabelRequested),
        )
        .at(format!("labeler/task_record/{}/labels/", w.video.video)),
        // Nothing to review (400): the permission is what is walked.
        call(
            "PATCH /labeler/task/mark_propagations_as_reviewed",
            Some(json!({"task": w.task})),
            Perm(LabelRequested),
        ),
        call(
            "PATCH /organization/task/mark_propagations_as_reviewed",
            Some(json!({"task": w.task})),
            Perm(LabelVideos),
        ),
        // An unknown video (400): nothing is deleted.
        call(
            "PATCH /organization/task/delete_annotations",
            Some(json!({"task": w.task, "videos": [UNKNOWN_ID]})),
            Perm(LabelVideos),
        ),
        call(
            "GET /organization/task/annotations_check/{id}",
            None,
            Perm(ViewVideos),
        )
        .at(format!("organization/task/annotations_check/{}", w.task)),
        call("GET /telemetry/fetch_cycles/v2", None, Perm(ViewCycles)),
        call(
            "POST /telemetry/fetch_cycles/",
            Some(json!({"page_size": 1})),
            Perm(ViewCycles),
        ),
        call(
            "GET /telemetry/unique_metadata_keys/",
            None,
            Perm(ViewCycles),
        ),
        call("GET /telemetry/top_five_percentile", None, Perm(ViewCycles)),
        call("GET /telemetry/trace/v2", None, Perm(ViewCycles)),
        call("GET /telemetry/trace/", None, Perm(ViewCycles)),
        call("GET /telemetry/cycle_stats", None, Perm(ViewCycles))
            .at("telemetry/cycle_stats?datetime_start=2026-11-01&datetime_end=2026-11-30"),
        // Unknown cycles (404 or 400): nothing changes.
        call(
            "PATCH /telemetry/cycle/{id}",
            Some(json!({"good": false, "reason": "walk"})),
            Perm(ManageCycles),
        )
        .at("telemetry/cycle/no-such-cycle"),
        call("DELETE /telemetry/cycle/{id}/", None, Perm(ManageCycles))
            .at("telemetry/cycle/no-such-cycle/"),
        call(
            "GET /telemetry/trace/trace_single_cycle_details/",
            None,
            Perm(ViewCycles),
        )
        .at("telemetry/trace/trace_single_cycle_details/?cycle_id=no-such-cycle"),
        call(
            "POST /telemetry/archive_cycle/",
            Some(json!({"ids": ["no-such-cycle"], "reason": "walk"})),
            Perm(ManageCycles),
        ),
        call("GET /telemetry/archive_cycle/", None, Perm(ManageCycles)),
        call("GET /telemetry/trace/line/", None, Perm(ViewCycles)),
        // An unknown device (400) or line (404): nothing changes.
        call(
            "POST /telemetry/trace/line/",
            Some(
                json!({"name": "Walk line", "stations": [{"task": w.task, "device": UNKNOWN_ID}]}),
            ),
            Perm(ManageLines),
        ),
        call("GET /telemetry/trace/line/{id}", None, Perm(ViewCycles))
            .at(format!("telemetry/trace/line/{UNKNOWN_ID}")),
        call(
            "PATCH /telemetry/trace/line/{id}",
            Some(json!({"name": "Walk line"})),
            Perm(ManageLines),
        )
        .at(format!("telemetry/trace/line/{UNKNOWN_ID}")),
        call("DELETE /telemetry/trace/line/{id}", None, Perm(ManageLines))
            .at(format!("telemetry/trace/line/{UNKNOWN_ID}")),
        call("GET /telemetry/line_stats", None, Perm(ViewCycles)).at(format!(
            "telemetry/line_stats?line={UNKNOWN_ID}&datetime_start=2026-11-01&\
             datetime_end=2026-11-30"
        )),
        call(
            "GET /telemetry/trace/line_traceability/",
            None,
            Perm(ViewCycles),
        )
        .at(format!(
            "telemetry/trace/line_traceability/?line={UNKNOWN_ID}&cycle_id=no-such-cycle"
        )),
        call("GET /telemetry/issues", None, Perm(ViewCycles))
            .at("telemetry/issues?datetime_start=2026-11-01&datetime_end=2026-11-30"),
        call("GET /telemetry/device_events", None, Perm(ViewCycles))
            .at("telemetry/device_events?datetime_start=2026-11-01&datetime_end=2026-11-30"),
        // The assistant: a question over a month (no cycles: the facts say so); the
        // documents listed; an unknown one deleted (404); an empty upload refused (400).
        call(
            "POST /organization/assistant/",
            Some(json!({"mode": "station_performance",
                "datetime_start": "2026-11-01", "datetime_end": "2026-11-30"})),
            Perm(ViewCycles),
        ),
        call(
            "GET /organization/assistant/documents/",
            None,
            Perm(ViewCycles),
        ),
        call(
            "POST /organization/assistant/documents/",
            None,
            Perm(ManageTasks),
        )
        .at("organization/assistant/documents/?name=walk.txt"),
        call(
            "DELETE /organization/assistant/documents/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!("organization/assistant/documents/{UNKNOWN_ID}/")),
        call(
            "GET /telemetry/tampering_requests/",
            None,
            Perm(ViewDevices),
        )
        .at(format!(
            "telemetry/tampering_requests/?organization={}&state=open&page=1",
            w.org_a
        )),
        // The first caller dismisses it; the next are told it was reviewed already.
        call(
            "PATCH /telemetry/tampering_requests/{id}/",
            Some(json!({"action": "dismiss", "note": format!("walked by {r}")})),
            Perm(ManageDevices),
        )
        .at(format!(
            "telemetry/tampering_requests/{}/",
            w.devices.tamper
        )),
        // No open cycle in the range (0 reviewed): nothing changes.
        call(
            "POST /telemetry/issues/review",
            Some(json!({"task": w.task, "key": "too_long",
                "datetime_start": "2026-11-01", "datetime_end": "2026-11-30"})),
            Perm(ManageCycles),
        ),
        call(
            "DELETE /telemetry/archived_cycle/{id}",
            None,
            Perm(ManageCycles),
        )
        .at("telemetry/archived_cycle/no-such-cycle"),
        call("GET /organization/model_version", None, Perm(ViewTasks))
            .at(format!("organization/model_version?task={}", w.task)),
        // An unknown model file (400): the permission is what is walked.
        call(
            "POST /organization/model_version",
            Some(json!({"task": w.task, "model_file": UNKNOWN_ID})),
            Perm(ManageTasks),
        ),
        call("GET /organization/model_types", None, Perm(ViewTasks)),
        call(
            "POST /organization/model_types",
            Some(json!({"name": format!("Walk type {r}"), "input_width": 32,
                "input_height": 24, "hidden": 8})),
            Perm(ManageModelTypes),
        ),
        call("GET /organization/model_types/{id}", None, Perm(ViewTasks))
            .at(format!("organization/model_types/{}", w.model_type)),
        call(
            "PATCH /organization/model_type/{id}",
            Some(json!({"description": format!("Walked by {r}")})),
            Perm(ManageModelTypes),
        )
        .at(format!("organization/model_type/{}", w.model_type)),
        // A JSON body is no ONNX model (400), declared or not: the permission is what is
        // walked.
        call(
            "POST /organization/model_files",
            Some(json!({})),
            Perm(ManageModelTypes),
        )
        .at(format!(
            "organization/model_files?model_type={}&input_layout=NCHW&input_type=float32",
            w.model_type
        )),
        call(
            "PATCH /organization/model_files",
            Some(json!({"model_type": w.model_type})),
            Perm(ManageModelTypes),
        )
        .at(format!("organization/model_files?ids={UNKNOWN_ID}")),
        call(
            "DELETE /organization/model_files",
            None,
            Perm(ManageModelTypes),
        )
        .at(format!("organization/model_files?ids={UNKNOWN_ID}")),
        call(
            "GET /organization/model_version/{id}",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/model_version/{}", w.video.model)),
        call(
            "PATCH /organization/model_version/{id}",
            Some(json!({"is_deleted": false})),
            Perm(ManageTasks),
        )
        .at(format!("organization/model_version/{}", w.video.model)),
        // No device chosen (400): the permission is what is walked, not a deploy.
        call(
            "POST /organization/model_version/{id}/deploy/",
            Some(json!({"devices": []})),
            Perm(OperateDevices),
        )
        .at(format!(
            "organization/model_version/{}/deploy/",
            w.video.model
        )),
        call("GET /organization/deployments/", None, Perm(ViewDevices)).at(format!(
            "organization/deployments/?model_version={}&task={}",
            w.video.model, w.task
        )),
        // Validation groups, videos and runs (unknown ids: a 404 or 400 is allowed).
        call(
            "GET /organization/validation-groups/",
            None,
            Perm(ViewTasks),
        ),
        call(
            "POST /organization/validation-groups/",
            Some(json!({"name": format!("walk-{r}"), "task": w.task})),
            Perm(ManageTasks),
        ),
        call(
            "DELETE /organization/validation-groups/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!("organization/validation-groups/{UNKNOWN_ID}/")),
        call(
            "GET /organization/validation-videos/retrieve/",
            None,
            Perm(ViewTasks),
        )
        .at(format!(
            "organization/validation-videos/retrieve/?group_id={UNKNOWN_ID}"
        )),
        call(
            "GET /organization/validation-videos/retrieve",
            None,
            Perm(ViewTasks),
        ),
        call(
            "PATCH /organization/validation-videos/{id}/",
            Some(json!({"name": "walk"})),
            Perm(ManageTasks),
        )
        .at(format!("organization/validation-videos/{UNKNOWN_ID}/")),
        call(
            "PUT /organization/validation-videos/add-video-to-group/",
            Some(json!({"group_id": UNKNOWN_ID, "videos": [w.video.video]})),
            Perm(ManageTasks),
        ),
        call(
            "POST /organization/validation-runs/",
            Some(json!({"group_id": UNKNOWN_ID, "model_version": w.video.model})),
            Perm(ManageTasks),
        ),
        call(
            "GET /organization/validation-runs/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/validation-runs/{UNKNOWN_ID}/")),
        call(
            "GET /organization/validation-runs-videos/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/validation-runs-videos/{UNKNOWN_ID}/")),
        call(
            "GET /websocket_inference/validation_record/group/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!(
            "websocket_inference/validation_record/group/{UNKNOWN_ID}/"
        )),
        call(
            "POST /websocket_inference/validation_records_from_trace/",
            Some(json!({"group_id": UNKNOWN_ID, "cycles": ["walk"]})),
            Perm(ManageTasks),
        ),
        call(
            "POST /websocket_inference/validation_record/{id}/",
            Some(json!({"segments": []})),
            Perm(ManageTasks),
        )
        .at(format!(
            "websocket_inference/validation_record/{UNKNOWN_ID}/"
        )),
        call(
            "DELETE /websocket_inference/validation_record/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!(
            "websocket_inference/validation_record/{UNKNOWN_ID}/"
        )),
        // A refused value (400): the role's permission is what is walked, not training.
        call(
            "PATCH /organization/trained_task/{id}",
            Some(json!({"train_status": "trained"})),
            Perm(ManageTasks),
        )
        .at(format!("organization/trained_task/{}", w.task)),
        call(
            "PATCH /organization/task/last_update/{id}",
            Some(json!({})),
            Perm(ManageTasks),
        )
        .at(format!("organization/task/last_update/{}", w.task)),
        // What the task's object detector works with.
        call(
            "GET /organization/task/list_task_objects/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!(
            "organization/task/list_task_objects/{}/?is_static=true",
            w.task
        )),
        call(
            "POST /organization/task/task_object/",
            Some(json!({"task": w.task, "name": format!("Walk object {r}")})),
            Perm(ManageTasks),
        ),
        call(
            "PATCH /organization/task/task_object/{id}/",
            Some(json!({"name": format!("Jig of {r}")})),
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/task_object/{}/",
            w.detector.object
        )),
        call(
            "GET /organization/task/list_plane_objects/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/task/list_plane_objects/{}/", w.task)),
        call(
            "POST /organization/task/plane_objects/",
            Some(
                json!({"task": w.task, "name": format!("Walk plane {r}"), "points": [[0, 0], [1, 0], [1, 1]]}),
            ),
            Perm(ManageTasks),
        ),
        call(
            "PUT /organization/task/plane_objects/{id}/",
            Some(json!({"name": format!("Bench of {r}"), "points": [[0, 0], [1, 0], [1, 1]]})),
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/plane_objects/{}/",
            w.detector.plane
        )),
        call(
            "GET /organization/task/object_detection_rule/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!(
            "organization/task/object_detection_rule/{}/",
            w.task
        )),
        // Step 0 has a rule: a 400 for the roles that may.
        call(
            "POST /organization/task/object_detection_rule/{id}/",
            Some(json!({"step": 0})),
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/object_detection_rule/{}/",
            w.task
        )),
        call(
            "PATCH /organization/task/object_detection_rule/{id}/",
            Some(json!({"verify": true})),
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/object_detection_rule/{}/",
            w.detector.rule
        )),
        call("GET /generic/list_region_json/{id}/", None, Perm(ViewTasks))
            .at(format!("generic/list_region_json/{}/", w.task)),
        call(
            "PATCH /generic/list_region_json/{id}/",
            Some(json!({"region_json": {"walked_by": r}})),
            Perm(ManageTasks),
        )
        .at(format!("generic/list_region_json/{}/", w.task)),
        // Annotation images and boxes (ViewVideos reads, LabelVideos changes), and the
        // depth and projector calls (the task's: none is attached, 409).
        call(
            "POST /organization/task/annotation_image/",
            Some(json!({"video": w.video.video, "frame_ms": 0})),
            Perm(LabelVideos),
        ),
        call(
            "GET /organization/task/annotation_image_list/{task}/",
            None,
            Perm(ViewVideos),
        )
        .at(format!(
            "organization/task/annotation_image_list/{}/?page_size=5",
            w.task
        )),
        call(
            "GET /organization/task/fetch_all_annotation_image_list/{task}",
            None,
            Perm(ViewVideos),
        )
        .at(format!(
            "organization/task/fetch_all_annotation_image_list/{}?filter=annotated",
            w.task
        )),
        call(
            "GET /organization/task/projector_annotation_image_list/{task}/",
            None,
            Perm(ViewVideos),
        )
        .at(format!(
            "organization/task/projector_annotation_image_list/{}/?page=1",
            w.task
        )),
        call(
            "POST /organization/annotation_image/get_static_image/",
            Some(json!({"task": w.task})),
            Perm(ViewVideos),
        ),
        call(
            "POST /organization/task/fetch_annotation_ids_object/",
            Some(json!({"task": w.task, "task_object": w.detector.object})),
            Perm(ViewVideos),
        ),
        call(
            "PATCH /organization/task/task_object/update_delete",
            Some(json!({"image": UNKNOWN_ID, "objects": []})),
            Perm(LabelVideos),
        ),
        call(
            "DELETE /organization/task/task_object/update_delete",
            Some(json!({"image": UNKNOWN_ID, "ids": [UNKNOWN_ID]})),
            Perm(LabelVideos),
        ),
        call(
            "POST /generic/revert_object_list/",
            Some(json!({"image": UNKNOWN_ID})),
            Perm(LabelVideos),
        ),
        call(
            "POST /organization/task/upload_thumbnail/",
            Some(json!({"video": w.video.video, "frame_ms": 0})),
            Perm(ManageVideos),
        ),
        // The same video twice is one: a 400 for the roles that may.
        call(
            "POST /organization/task/merge_video_sequences/",
            Some(json!({"task": w.task, "videos": [w.video.video, w.video.video]})),
            Perm(ManageVideos),
        ),
        call(
            "PATCH /organization/annotations/bulk-delete/",
            Some(json!({"task": w.task, "ids": [UNKNOWN_ID]})),
            Perm(LabelVideos),
        ),
        call("GET /organization/task/is_3d/{id}/", None, Perm(ViewTasks))
            .at(format!("organization/task/is_3d/{}/", w.task)),
        call(
            "GET /organization/task/depth_frame/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/task/depth_frame/{}/", w.task)),
        call(
            "POST /organization/task/depth_frame/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!("organization/task/depth_frame/{}/", w.task)),
        call(
            "GET /organization/task/zero_depth_pixel/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!("organization/task/zero_depth_pixel/{}/", w.task)),
        call(
            "PUT /organization/task/reset_plane_objects/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!("organization/task/reset_plane_objects/{}/", w.task)),
        call(
            "PUT /organization/task/calculate_plane_object_equation/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/calculate_plane_object_equation/{}/",
            w.detector.plane
        )),
        call(
            "GET /organization/task/get_overlay_frame/{id}/",
            None,
            Perm(ViewTasks),
        )
        .at(format!(
            "organization/task/get_overlay_frame/{}/?plane_id={}",
            w.task, w.detector.plane
        )),
        call(
            "PUT /generic/update_projector_region/",
            Some(json!({"task": w.task})),
            Perm(ManageTasks),
        ),
        call(
            "PATCH /generic/copy_projector_media/",
            Some(json!({"task": w.task})),
            Perm(ManageTasks),
        ),
        // The deletions come last: the super admin's go through.
        call(
            "PATCH /organization/task/object_detection_rule/bulk_delete",
            Some(json!({"ids": [w.detector.rule]})),
            Perm(ManageTasks),
        ),
        call(
            "DELETE /organization/task/object_detection_rule/delete/",
            None,
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/object_detection_rule/delete/?id={}",
            w.detector.rule
        )),
        call(
            "DELETE /organization/task/plane_objects/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/plane_objects/{}/",
            w.detector.plane
        )),
        call(
            "DELETE /organization/task/task_object/{id}/",
            None,
            Perm(ManageTasks),
        )
        .at(format!(
            "organization/task/task_object/{}/",
            w.detector.object
        )),
        // Service tokens, the cloud-function token (the super admin's).
        call("GET /generic/userpool/", None, Perm(AdminArea)),
        call(
            "POST /generic/userpool/",
            Some(
                json!({"name": format!("Walk token {r}"), "organization": w.org_a,
                "role": "org_user", "expires_in_days": 30}),
            ),
            Perm(AdminArea),
        ),
        call("DELETE /generic/userpool/{id}/", None, Perm(AdminArea))
            .at(format!("generic/userpool/{UNKNOWN_ID}/")),
        // Agent releases and the fleet (the super admin's).
        call(
            "POST /binary_deployment/",
            Some(json!({})),
            Perm(ManageReleases),
        )
        .at(
            "binary_deployment/?environment=dev&branch=main&version=0.0.1&target=x86_64\
             &signature=AAAA",
        ),
        call(
            "GET /binary_deployment/previous_releases/",
            None,
            Perm(ManageReleases),
        )
        .at("binary_deployment/previous_releases/?page=1"),
        call(
            "GET /binary_deployment/download_binaries/",
            None,
            Perm(ManageReleases),
        )
        .at("binary_deployment/download_binaries/?environment=dev&branch=main&version=0.0.1"),
        call(
            "GET /binary_deployment/{id}/latest_deployment/",
            None,
            Perm(ManageReleases),
        )
        .at(format!("binary_deployment/{UNKNOWN_ID}/latest_deployment/")),
        call(
            "GET /binary_deployment/get_latest_deployable_branch/",
            None,
            Perm(ManageReleases),
        ),
        call(
            "DELETE /binary_deployment/delete_branch/",
            None,
            Perm(ManageReleases),
        )
        .at(format!(
            "binary_deployment/delete_branch/?environment=dev&branch=main&id={UNKNOWN_ID}"
        )),
        call(
            "PATCH /binary_deployment/move_binaries_to_prod/",
            Some(json!({"version": "0.0.1", "environment": "prod"})),
            Perm(ManageReleases),
        ),
        call(
            "PATCH /binary_deployment/{id}/",
            Some(json!({"currentState": "stopped"})),
            Perm(ManageReleases),
        )
        .at(format!("binary_deployment/{UNKNOWN_ID}/")),
        call(
            "GET /binary_deployment/instances/",
            None,
            Perm(ManageReleases),
        )
        .at("binary_deployment/instances/?page=1&search=walk"),
        call("GET /binary_deployment/binary/{token}", None, Public)
            .at("binary_deployment/binary/not-a-token"),
        // Devices; what changes the device comes last.
        call(
            "POST /device/",
            Some(json!({"display_name": format!("Walk device {r}")})),
            Perm(ManageDevices),
        ),
        call(
            "POST /device/enroll/",
            Some(json!({"code": "AAAA-BBBB-CCCC"})),
            Public,
        ),
        call("GET /device/device_org/{id}/", None, Perm(ViewDevices))
            .at(format!("device/device_org/{}/", w.org_a)),
        call(
            "GET /device/{id}/get_department_less_devices/",
            None,
            Perm(ViewDevices),
        )
        .at(format!("device/{}/get_department_less_devices/", w.org_a)),
        call("GET /device/devicelistadminview", None, Perm(AdminArea))
            .at("device/devicelistadminview?page=1&query=walk"),
        call("GET /device/{id}/device_details/", None, Perm(ViewDevices))
            .at(format!("device/{}/device_details/", w.devices.device)),
        // Videos.
        call(
            "GET /organization/task/videos/{task_id}",
            None,
            Perm(ViewVideos),
        )
        .at(format!("organization/task/videos/{}", w.task)),
        call(
            "POST /organization/task/videos/{task_id}",
            Some(json!({"file_name": format!("{r}.mp4"), "size_bytes": 100})),
            Perm(ManageVideos),
        )
        .at(format!("organization/task/videos/{}", w.task)),
        call(
            "GET /organization/task_record/{id}/",
            None,
            Perm(ViewVideos),
        )
        .at(format!("organization/task_record/{}/", w.video.video)),
        // A JSON body and no Content-Range: a 400 for those who may upload.
        call(
            "PUT /organization/task_record/{id}/content/",
            Some(json!({})),
            Perm(ManageVideos),
        )
        .at(format!(
            "organization/task_record/{}/content/",
            w.video.video
        )),
        call(
            "GET /organization/task_record/{id}/labels/",
            None,
            Perm(ViewVideos),
        )
        .at(format!(
            "organization/task_record/{}/labels/",
            w.video.video
        )),
        call(
            "PUT /organization/task_record/{id}/labels/",
            Some(json!({"segments": []})),
            Perm(LabelVideos),
        )
        .at(format!(
            "organization/task_record/{}/labels/",
            w.video.video
        )),
        call(
            "PATCH /organization/task_record/bulk_delete/",
            Some(json!({"ids": [UNKNOWN_ID]})),
            Perm(ManageVideos),
        ),
        call("GET /media/{token}", None, Public).at("media/not-a-token"),
        // Files (the `generic/` file calls): read with ViewTasks, written with
        // ManageTasks; the upload URLs of the local folder need no sign-in.
        call(
            "POST /generic/file_upload/",
            Some(json!({})),
            Perm(ManageTasks),
        ),
        call(
            "POST /generic/file_read/",
            Some(json!({"bucket_name": "walk-files", "object_path": "none.txt"})),
            Perm(ViewTasks),
        ),
        call(
            "POST /generic/file_delete/",
            Some(json!({"bucket_name": "walk-files", "object_path": "none.txt"})),
            Perm(ManageTasks),
        ),
        call(
            "POST /generic/generate_new_url/",
            Some(
                json!({"bucket_name": "walk-files", "object_path": "in", "file": format!("{r}.txt")}),
            ),
            Perm(ManageTasks),
        ),
        call(
            "POST /generic/generate_presigned_post/",
            Some(
                json!({"bucket_name": "walk-files", "object_path": "in", "file": format!("{r}.txt")}),
            ),
            Perm(ManageTasks),
        ),
        call(
            "POST /generic/verify_generate_new_url/",
            Some(json!({"bucket_name": "walk-files", "files": ["in/x.txt"]})),
            Perm(ViewTasks),
        ),
        call(
            "POST /generic/get_bucket_folder_zip/",
            Some(json!({"bucket_name": "walk-files", "folder": "in"})),
            Perm(ViewTasks),
        ),
        call(
            "POST /generic/get_bucket_folder_presigned_url/",
            Some(json!({"bucket_name": "walk-files", "folder": "in"})),
            Perm(ViewTasks),
        ),
        call(
            "POST /organization/create_kaizen_bucket",
            None,
            Perm(ManageTasks),
        ),
        call("PUT /files/{token}", None, Public).at("files/not-a-token"),
        call("POST /files/{token}", None, Public).at("files/not-a-token"),
        // No device online in the walk (400): the permission is what is walked.
        call(
            "POST /organization/task/videos/{task_id}/record/",
            Some(json!({"device": w.devices.device, "camera": "cam0", "seconds": 10})),
            Perm(ManageVideos),
        )
        .at(format!("organization/task/videos/{}/record/", w.task)),
        call("PUT /device/recording/{token}", Some(json!({})), Public)
            .at("device/recording/not-a-token"),
        call(
            "PUT /device/clip/{token}/{cycle_id}",
            Some(json!({})),
            Public,
        )
        .at(format!("device/clip/not-a-token/{}", uuid::Uuid::new_v4())),
        call(
            "PATCH /organization/task_record/{id}/",
            Some(json!({"file_name": format!("{r}.mp4")})),
            Perm(ManageVideos),
        )
        .at(format!("organization/task_record/{}/", w.video.video)),
        call(
            "POST /organization/task_record/extract_video_metadata",
            Some(json!({"task_record": w.video.video})),
            Perm(ViewVideos),
        ),
        call(
            "POST /organization/entity/",
            Some(json!({"task_record": w.video.video})),
            Perm(ViewVideos),
        ),
        call(
            "POST /generic/send_message_to_sqs/",
            Some(json!({
                "queue": "trim_video",
                "video_id": w.video.video,
                "start_ms": 0,
                "end_ms": 500,
            })),
            Perm(ManageVideos),
        ),
        call(
            "POST /generic/send_message_to_sqs/",
            Some(json!({
                "queue": "update_task",
                "task_id": w.task,
                // A star alone: no history entry, which this walk counts.
                "changes": {"starred": false},
            })),
            Perm(ManageTasks),
        ),
        call(
            "POST /generic/send_message_to_sqs/",
            Some(json!({
                "queue": "cloning_task",
                "task_id": w.task,
                "task_name": format!("Walk queued copy {r}"),
            })),
            Perm(ManageTasks),
        ),
        call(
            "POST /generic/send_message_to_sqs/",
            Some(json!({
                "queue": "sample_images_for_detector",
                "task_id": w.task,
                "frames_per_video": 1,
            })),
            Perm(LabelVideos),
        ),
        call("GET /generic/queue_message/{id}/", None, Perm(ViewVideos))
            .at(format!("generic/queue_message/{UNKNOWN_ID}/")),
        call("GET /organization/task_record/tags", None, Perm(ViewVideos)),
        call(
            "GET /organization/task/task_tags/{id}",
            None,
            Perm(ViewVideos),
        )
        .at(format!("organization/task/task_tags/{}", w.task)),
        call(
            "POST /organization/task_record/tags",
            Some(json!({"tag_name": format!("Tag of {r}")})),
            Perm(ManageVideos),
        ),
        call(
            "DELETE /organization/task_record/tags/{id}",
            None,
            Perm(ManageVideos),
        )
        .at(format!("organization/task_record/tags/{UNKNOWN_ID}")),
        call(
            "GET /organization/task_record/comments",
            None,
            Perm(ViewVideos),
        )
        .at(format!(
            "organization/task_record/comments?entity_id={}",
            w.video.video
        )),
        call(
            "POST /organization/task_record/comments",
            Some(json!({"entity_id": w.video.video, "text": format!("Seen by {r}")})),
            Perm(ViewVideos),
        ),
        call(
            "DELETE /organization/task_record/comments/{id}",
            None,
            Perm(ViewVideos),
        )
        .at(format!("organization/task_record/comments/{UNKNOWN_ID}")),
        call(
            "GET /organization/tag_time_stamp_videos_view",
            None,
            Perm(ViewVideos),
        )
        .at(format!(
            "organization/tag_time_stamp_videos_view?task_record={}",
            w.video.video
        )),
        call(
            "POST /organization/tag_time_stamp_videos_view",
            Some(json!({"task_record": w.video.video, "tag": w.video.tag, "time_ms": 100})),
            Perm(LabelVideos),
        ),
        call(
            "DELETE /organization/tag_time_stamp_video/{id}",
            None,
            Perm(LabelVideos),
        )
        .at(format!("organization/tag_time_stamp_video/{UNKNOWN_ID}")),
        call("GET /device/device_setting/", None, Perm(ViewDevices)),
        call(
            "GET /device/multi_device_settings/",
            None,
            Perm(ViewDevices),
        ),
        call(
            "GET /device/{org}/device_settings/{id}/",
            None,
            Perm(ViewDevices),
        )
        .at(format!(
            "device/{}/device_settings/{}/",
            w.org_a, w.devices.device
        )),
        call("GET /device/get_active_devices/", None, Perm(ViewDevices)),
        call("GET /device/device_status/", None, Perm(ViewDevices)),
        call("GET /device/devices_stats/", None, Perm(ViewDevices)),
        // Device monitoring, keyed by organisation (issue 31).
        call(
            "GET /monitoring/{org}/device_status/",
            None,
            Perm(ViewDevices),
        )
        .at(format!("monitoring/{}/device_status/", w.org_a)),
        call(
            "GET /monitoring/{org}/device_monitoring/",
            None,
            Perm(ViewDevices),
        )
        .at(format!("monitoring/{}/device_monitoring/", w.org_a)),
        // Push notifications: one's own browsers' subscriptions (issue 31).
        call("GET /firebase/vapid_public_key/", None, SignedIn),
        call("GET /firebase/topic_subscription/", None, SignedIn),
        call(
            "POST /firebase/topic_subscription/",
            Some(json!({
                "topic": "Task Update",
                "tokens": [{
                    "endpoint": format!("https://push.walk.test/{r}"),
                    "keys": {
                        "p256dh": "BCbvzr0O6eNKZpGH4Ys6kSKy9zOUW2Scyfn5Ien52tgSkCOL3pzHuzMNFQxncE3SWucFUgV0S28xv0BwdFhy0OY",
                        "auth": "AAECAwQFBgcICQoLDA0ODw",
                    },
                }],
                "action": "subscribe",
            })),
            SignedIn,
        ),
        call("DELETE /firebase/unsubscribe/", None, SignedIn)
            .at("firebase/unsubscribe/?endpoint=https%3A%2F%2Fpush.walk.test%2Fgone"),
        call("GET /device/get_device_tasks/{id}", None, Perm(ViewDevices))
            .at(format!("device/get_device_tasks/{}", w.devices.device)),
        call("GET /device/{id}/commands/", None, Perm(ViewDevices))
            .at(format!("device/{}/commands/", w.devices.device)),
        call(
            "GET /device/get_device_tasks_association/",
            None,
            Perm(ViewDevices),
        )
        .at(format!(
            "device/get_device_tasks_association/?task={}&device={}",
            w.task, w.devices.device
        )),
        call(
            "GET /organization/task/task_inference_status",
            None,
            Perm(ViewTasks),
        ),
        call(
            "PATCH /device/{id}/",
            Some(json!({"display_name": format!("Walked by {r}")})),
            Perm(OperateDevices),
        )
        .at(format!("device/{}/", w.devices.device)),
        call(
            "PATCH /device/update_device/{id}/",
            Some(json!({"Serial_number": r})),
            Perm(OperateDevices),
        )
        .at(format!("device/update_device/{}/", w.devices.device)),
        call(
            "PATCH /device/{org}/device_settings_update/{id}/",
            Some(json!({"walked_by": r})),
            Perm(OperateDevices),
        )
        .at(format!(
            "device/{}/device_settings_update/{}/",
            w.org_a, w.devices.device
        )),
        call(
            "PATCH /device/{org}/update_organization_devices_settings/",
            Some(json!({"walked": true})),
            Perm(OperateDevices),
        )
        .at(format!(
            "device/{}/update_organization_devices_settings/",
            w.org_a
        )),
        // Started and stopped again, so the task stays changeable for the next caller.
        call(
            "POST /device/device_tasks_upsert/",
            Some(json!({"device": w.devices.device, "camera": "cam0", "task": w.task})),
            Perm(OperateDevices),
        ),
        call(
            "POST /device/{id}/start_task/",
            Some(json!({"camera": "cam0", "task": w.task})),
            Perm(OperateDevices),
        )
        .at(format!("device/{}/start_task/", w.devices.device)),
        call(
            "POST /device/{id}/stop_task/",
            Some(json!({"camera": "cam0"})),
            Perm(OperateDevices),
        )
        .at(format!("device/{}/stop_task/", w.devices.device)),
        // What the device keeps (issue 29): remote cameras, blur regions, schedules.
        call("GET /device/remote_cam/{id}/", None, Perm(ViewDevices))
            .at(format!("device/remote_cam/{}/", w.devices.device)),
        call(
            "POST /device/remote_cam/{id}/",
            Some(json!({"name": format!("walk-{r}"), "url": "rtsp://10.0.0.8/s"})),
            Perm(OperateDevices),
        )
        .at(format!("device/remote_cam/{}/", w.devices.device)),
        call(
            "PATCH /device/remote_cam/{id}/",
            Some(json!({"url": "rtsp://10.0.0.7/s"})),
            Perm(OperateDevices),
        )
        .at(format!("device/remote_cam/{}/", w.devices.remote_cam)),
        call(
            "DELETE /device/remote_cam/{id}/",
            None,
            Perm(OperateDevices),
        )
        .at(format!("device/remote_cam/{}/", w.devices.doomed_cam)),
        // OPC UA node bindings (issue 32): a node of its own per caller.
        call("GET /device/{id}/opcua_bindings/", None, Perm(ViewDevices))
            .at(format!("device/{}/opcua_bindings/", w.devices.device)),
        call(
            "POST /device/{id}/opcua_bindings/",
            Some(json!({"endpoint": "opc.tcp://10.0.0.20:4840",
                "node_id": format!("ns=2;s=walk-{r}"), "camera": "door", "role": "start_cycle"})),
            Perm(ExploreOpcua),
        )
        .at(format!("device/{}/opcua_bindings/", w.devices.device)),
        call(
            "DELETE /device/{id}/opcua_bindings/{binding}/",
            None,
            Perm(ExploreOpcua),
        )
        .at(format!(
            "device/{}/opcua_bindings/{}/",
            w.devices.device, w.devices.doomed_binding
        )),
        call("GET /device/blur_regions", None, Perm(ViewDevices))
            .at(format!("device/blur_regions?device={}", w.devices.device)),
        call(
            "POST /device/blur_regions",
            Some(json!({"device": w.devices.device, "camera": "door",
                "regions": [{"x": 0.5, "y": 0.5, "width": 0.1, "height": 0.1}]})),
            Perm(OperateDevices),
        ),
        call(
            "PUT /device/blur_regions",
            Some(json!({"device": w.devices.device, "camera": "door",
                "regions": [{"x": 0.5, "y": 0.5, "width": 0.2, "height": 0.2}]})),
            Perm(OperateDevices),
        ),
        call(
            "DELETE /device/delete_blur_regions",
            None,
            Perm(OperateDevices),
        )
        .at(format!("device/delete_blur_regions?ids={}", w.devices.blur)),
        call("GET /device/get_schedules", None, Perm(ViewDevices))
            .at(format!("device/get_schedules?device={}", w.devices.device)),
        // Each role's on a weekday of its own would clash at the same hour: a 400 is
        // an answer, not a refusal.
        call(
            "POST /device/add_schedules",
            Some(
                json!({"device": w.devices.device, "camera": "door", "task": w.task,
                "days": [0], "start": "10:00", "end": "11:00"}),
            ),
            Perm(OperateDevices),
        ),
        call(
            "PATCH /device/schedules/{id}",
            Some(json!({"end": "01:30"})),
            Perm(OperateDevices),
        )
        .at(format!("device/schedules/{}", w.devices.schedule)),
        call("DELETE /device/schedules/{id}", None, Perm(OperateDevices))
            .at(format!("device/schedules/{}", w.devices.doomed_schedule)),
        // No device online in the walk (400): the permission is what is walked.
        call("GET /organization/get_screenshot", None, Perm(ViewDevices)).at(format!(
            "organization/get_screenshot?device={}&camera=door",
            w.devices.device
        )),
        call(
            "GET /organization/get_screenshot_intervals",
            None,
            Perm(ViewDevices),
        )
        .at(format!(
            "organization/get_screenshot_intervals?device={}",
            w.devices.device
        )),
        call("PUT /device/screenshot/{token}", Some(json!({})), Public)
            .at("device/screenshot/not-a-token"),
        call(
            "PATCH /device/{id}/assign_device_to_department/{dept}/",
            None,
            Perm(ManageDevices),
        )
        .at(format!(
            "device/{}/assign_device_to_department/{}/",
            w.devices.device, w.devices.dept
        )),
        call(
            "POST /device/{id}/enrolment_code/",
            None,
            Perm(ManageDevices),
        )
        .at(format!("device/{}/enrolment_code/", w.devices.device)),
        call("POST /device/{id}/revoke/", None, Perm(ManageDevices))
            .at(format!("device/{}/revoke/", w.devices.device)),
        call(
            "PATCH /device/archive_device/{id}/",
            Some(json!({"is_archived": false})),
            Perm(ManageDevices),
        )
        .at(format!("device/archive_device/{}/", w.devices.device)),
        call("DELETE /device/{id}/", None, Perm(ManageDevices))
            .at(format!("device/{}/", w.devices.doomed)),
        call(
            "PATCH /device/{id}/update_channel/",
            Some(json!({"update_channel": "dev"})),
            Perm(ManageDevices),
        )
        .at(format!("device/{}/update_channel/", w.devices.device)),
        call(
            "POST /device/set_fetch_analytics/{id}/",
            Some(json!({"fetch_analytics": false})),
            Perm(OperateDevices),
        )
        .at(format!("device/set_fetch_analytics/{}/", w.devices.device)),
        // Last: the session ends.
        call("PATCH /account/logout/", None, SignedIn),
    ]
}
