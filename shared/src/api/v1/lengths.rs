//! The longest value of every free-text field of the API's request bodies (issue 28):
//! one table, each body with its [`Limit`]s (`validate::lengths`). The server checks a
//! body with [`Bounded::check_lengths`] before anything else; the numbers are
//! `validate`'s, which the portal reads too, and each field's `#[schema(max_length)]`
//! in the OpenAPI says the same (the cloud's OpenAPI test compares them).
//!
//! Free-form JSON (task settings' objects, device settings, regions, the portal's
//! stored session) is bounded by size where it is taken, not here.

use crate::validate::{
    Bounded, Limit, MAX_CODE_CHARS as CODE, MAX_COMMENT_CHARS as COMMENT,
    MAX_DESCRIPTION_CHARS as DESCRIPTION, MAX_EMAIL_CHARS as EMAIL,
    MAX_FILE_NAME_CHARS as FILE_NAME, MAX_NAME_CHARS as NAME, MAX_PERSON_NAME_CHARS as PERSON_NAME,
    MAX_REASON_CHARS as REASON, MAX_SUBDOMAIN_CHARS as SUBDOMAIN, MAX_SUBJECT_CHARS as SUBJECT,
    MAX_TAG_CHARS as TAG, MAX_TASK_DETAIL_CHARS as TASK_DETAIL, MAX_TOKEN_CHARS as TOKEN,
    PASSWORD_MAX_LEN as PASSWORD, PASSWORD_TOO_LONG,
};

use super::{
    account as a, assistant as ai, barcode as bc, cameras as c, device as d, feature_control as f,
    labeler as lb, line as ln, opcua as op, organization as o, sso as s, task as t,
    telemetry as tm, training as tr, video as v,
};

/// What an identity provider hands over (single sign-on): an ID token is a few
/// kilobytes, an access token may be as long.
pub const SSO_TOKEN: usize = 16 * 1024;
/// An authorization code, a PKCE verifier (at most 128 by RFC 7636), a nonce.
pub const SSO_CODE: usize = 1024;
/// A remote camera's URL (`mqtt::v1::MAX_URL_BYTES`).
pub const URL: usize = crate::mqtt::v1::MAX_URL_BYTES;
/// The address the provider sent the browser back to.
pub const SSO_URI: usize = 2048;

macro_rules! bounded {
    ($($t:ty => [$($l:expr),* $(,)?]),* $(,)?) => {
        $(impl Bounded for $t {
            const LIMITS: &'static [Limit] = &[$($l),*];
        })*
    };
}

const fn l(path: &'static str, label: &'static str, max: usize) -> Limit {
    Limit::new(path, label, max)
}

/// A password that is not being chosen (sign-in, the old one): the plain message.
const fn password(path: &'static str, label: &'static str) -> Limit {
    l(path, label, PASSWORD)
}

/// A new password: the password rule's own message.
const fn new_password(path: &'static str) -> Limit {
    l(path, "Password", PASSWORD).said(PASSWORD_TOO_LONG)
}

/// The names of an operation given as processes (`TaskCreate`, `TaskPatch`); the
/// server bounds the names of an operation given as text by the same limits.
pub const PROCESS_NAMES: [Limit; 3] = [
    l("processes.*.name", "A process name", NAME),
    l("processes.*.steps.*.name", "A step name", NAME),
    l("processes.*.steps.*.substeps.*", "A sub-step name", NAME),
];

bounded! {
    a::LoginRequest => [l("email", "Email", EMAIL), password("password", "Password")],
    a::RegisterRequest => [
        l("name", "Name", PERSON_NAME),
        l("lastname", "Last name", PERSON_NAME),
        l("email", "Email", EMAIL),
        new_password("password"),
    ],
    a::EmailRequest => [l("email", "Email", EMAIL)],
    a::OtpRequest => [l("otp", "OTP", CODE)],
    a::SmsMethodRequest => [l("mobile_number", "Mobile number", CODE)],
    a::RefreshRequest => [l("refresh", "Refresh token", TOKEN)],
    a::ResetPasswordRequest => [l("token", "Token", TOKEN), new_password("password")],
    a::ChangePasswordRequest => [
        password("old_password", "Old password"),
        new_password("new_password"),
    ],
    a::WorkstationPasswordRequest => [new_password("password")],
    a::ChangeEmailRequest => [l("email", "Email", EMAIL), password("password", "Password")],
    a::TokenRequest => [l("token", "Token", TOKEN)],
    a::SessionCreate => [
        l("browser", "Browser", NAME),
        l("browser_version", "Browser version", NAME),
    ],
    a::ApproveUser => [l("email", "Email", EMAIL)],
    a::AssignUserOrg => [l("email", "Email", EMAIL)],
    a::RoleCreate => [l("name", "Name", NAME)],

    o::OrganizationCreate => [
        l("name", "Name", SUBDOMAIN),
        l("org_name_to_display", "Display name", NAME),
    ],
    o::OrganizationPatch => [
        l("name", "Name", SUBDOMAIN),
        l("org_name_to_display", "Display name", NAME),
        l("time_zone", "Time zone", CODE),
    ],
    o::DepartmentCreate => [l("name", "Department name", NAME)],
    o::SwitchOrganization => [l("organizationDisplayName", "Display name", NAME)],

    f::FeatureCreate => [l("name", "Name", NAME)],
    bc::BarcodeCreate => [l("barcode_value", "Barcode value", bc::MAX_BARCODE_CHARS)],
    bc::BarcodeValuePatch => [l("barcode_value", "Barcode value", bc::MAX_BARCODE_CHARS)],
    super::rectification::RectificationStepCreate => [
        l("description", "Description", super::rectification::MAX_RECTIFICATION_CHARS),
    ],
    f::EventNotificationCreate => [
        l("event_type", "Event type", CODE),
        l("recipients.*", "A recipient", EMAIL),
    ],
    f::EventNotificationPatch => [
        l("event_type", "Event type", CODE),
        l("recipients.*", "A recipient", EMAIL),
    ],
    // The body is bounded in bytes by `validate::email_body`.
    f::SendEmail => [l("recipients.*", "A recipient", EMAIL), l("subject", "Subject", SUBJECT)],

    t::TaskCreate => [
        l("taskName", "Task name", NAME),
        l("task_detail", "The operation text", TASK_DETAIL),
        PROCESS_NAMES[0],
        PROCESS_NAMES[1],
        PROCESS_NAMES[2],
    ],
    t::TaskPatch => [
        l("taskName", "Task name", NAME),
        l("task_detail", "The operation text", TASK_DETAIL),
        PROCESS_NAMES[0],
        PROCESS_NAMES[1],
        PROCESS_NAMES[2],
        l("model_choice", "The model name", NAME),
        l("model_type", "The model name", NAME),
        l("translation.*", "A translation", NAME),
        l("translation_name", "The language", NAME),
    ],
    t::CloneTask => [l("taskName", "Task name", NAME)],
    t::CloneTaskInto => [l("taskName", "Task name", NAME)],
    t::TaskObjectCreate => [
        l("name", "The object name", NAME),
        l("outline_color", "The outline colour", CODE),
    ],
    t::TaskObjectPatch => [
        l("name", "The object name", NAME),
        l("outline_color", "The outline colour", CODE),
    ],
    t::PlaneObjectWrite => [l("name", "The plane name", NAME)],
    t::DetectionRuleWrite => [
        l("rule.boolean_expr", "The boolean expression", DESCRIPTION),
        l("rule.rule_types.*", "A rule type", NAME),
    ],

    d::DeviceCreate => [
        l("display_name", "Device name", NAME),
        l("Serial_number", "Serial number", NAME),
        l("Type", "Type", NAME),
    ],
    d::DevicePatch => [
        l("display_name", "Device name", NAME),
        l("Serial_number", "Serial number", NAME),
        l("Type", "Type", NAME),
    ],
    // The agent's call has one answer for every code it cannot use (decisions.md).
    d::EnrolRequest => [l("code", "Code", CODE).said("The enrolment code is wrong or expired.")],
    d::DeviceTaskUpsert => [l("camera", "Camera", NAME)],
    d::StartTask => [l("camera", "Camera", NAME)],
    d::StopTask => [l("camera", "Camera", NAME)],
    c::RemoteCamCreate => [
        l("name", "Name", NAME),
        l("url", "URL", URL),
        l("username", "Username", NAME),
        password("password", "Password"),
    ],
    c::RemoteCamPatch => [
        l("name", "Name", NAME),
        l("url", "URL", URL),
        l("username", "Username", NAME),
        password("password", "Password"),
    ],
    c::BlurRegionsWrite => [l("camera", "Camera", NAME)],
    op::OpcuaBindingCreate => [
        l("endpoint", "Endpoint", crate::mqtt::v1::MAX_ENDPOINT_BYTES),
        l("node_id", "Node id", crate::mqtt::v1::MAX_NODE_ID_BYTES),
        l("camera", "Camera", NAME),
        l("role", "Role", 20),
        l("key", "Metadata key", crate::mqtt::v1::MAX_KEY_BYTES),
    ],
    c::ScheduleCreate => [
        l("camera", "Camera", NAME),
        l("start", "Start", CODE),
        l("end", "End", CODE),
    ],
    c::SchedulePatch => [
        l("camera", "Camera", NAME),
        l("start", "Start", CODE),
        l("end", "End", CODE),
    ],

    v::VideoCreate => [l("file_name", "File name", FILE_NAME)],
    v::VideoPatch => [l("file_name", "File name", FILE_NAME)],
    v::RecordRequest => [l("camera", "Camera", NAME)],
    v::OrgTagCreate => [l("tag_name", "Tag name", TAG)],
    v::CommentCreate => [l("text", "Comment", COMMENT)],

    tm::CycleVerdict => [l("reason", "Reason", REASON)],
    tm::ArchiveCycles => [l("ids.*", "A cycle id", CODE), l("reason", "Reason", REASON)],
    tm::ReviewIssue => [
        l("key", "Key", CODE),
        l("datetime_start", "Start", CODE),
        l("datetime_end", "End", CODE),
        l("note", "Note", REASON),
    ],
    ln::LineBody => [l("name", "Name", NAME)],

    tr::TrainedTaskPatch => [l("train_status", "Train status", CODE)],
    tr::ModelTypeCreate => [
        l("name", "Name", NAME),
        l("description", "Description", DESCRIPTION),
    ],
    tr::ModelTypePatch => [
        l("name", "Name", NAME),
        l("description", "Description", DESCRIPTION),
    ],

    lb::LabelRequestCreate => [l("email", "Email", EMAIL)],

    // The names the assistant's form gives its fields.
    ai::AssistantAsk => [
        l("mode", "Mode", ai::MODE_MAX),
        l("message", "Question", ai::QUESTION_MAX),
        l("datetime_start", "From", ai::DATETIME_MAX),
        l("datetime_end", "To", ai::DATETIME_MAX),
        l("compare_start", "Compare from", ai::DATETIME_MAX),
        l("compare_end", "Compare to", ai::DATETIME_MAX),
    ],

    s::SsoSignIn => [
        l("id_token", "ID token", SSO_TOKEN),
        l("nonce", "Nonce", SSO_CODE),
        l("code", "Code", SSO_CODE),
        l("code_verifier", "Code verifier", SSO_CODE),
        l("redirect_uri", "Redirect URI", SSO_URI),
    ],
    s::SsoRefresh => [l("access_token", "Access token", SSO_TOKEN)],
    super::service_token::ServiceTokenCreate => [l("name", "Name", NAME), l("role", "Role", NAME)],
    super::files::FileRef => [
        l("bucket_name", "Bucket name", super::files::MAX_BUCKET_NAME_CHARS),
        l("object_path", "Object path", super::files::MAX_OBJECT_PATH_BYTES),
    ],
    super::files::NewUrlRequest => [
        l("bucket_name", "Bucket name", super::files::MAX_BUCKET_NAME_CHARS),
        l("object_path", "Object path", super::files::MAX_OBJECT_PATH_BYTES),
        l("file", "File", FILE_NAME),
    ],
    super::files::VerifyRequest => [
        l("bucket_name", "Bucket name", super::files::MAX_BUCKET_NAME_CHARS),
        l("files.*", "A file", super::files::MAX_OBJECT_PATH_BYTES),
    ],
    super::files::FolderRequest => [
        l("bucket_name", "Bucket name", super::files::MAX_BUCKET_NAME_CHARS),
        l("folder", "Folder", super::files::MAX_OBJECT_PATH_BYTES),
    ],
}

/// Every bounded body with its limits, by type name: what the OpenAPI's `maxLength`
/// must say, and what the integration tests walk.
pub fn all() -> Vec<(&'static str, &'static [Limit])> {
    fn of<T: Bounded>() -> (&'static str, &'static [Limit]) {
        let name = std::any::type_name::<T>();
        (name.rsplit("::").next().unwrap_or(name), T::LIMITS)
    }
    vec![
        of::<a::LoginRequest>(),
        of::<a::RegisterRequest>(),
        of::<a::EmailRequest>(),
        of::<a::OtpRequest>(),
        of::<a::SmsMethodRequest>(),
        of::<a::RefreshRequest>(),
        of::<a::ResetPasswordRequest>(),
        of::<a::ChangePasswordRequest>(),
        of::<a::WorkstationPasswordRequest>(),
        of::<a::ChangeEmailRequest>(),
        of::<a::TokenRequest>(),
        of::<a::SessionCreate>(),
        of::<a::ApproveUser>(),
        of::<a::AssignUserOrg>(),
        of::<a::RoleCreate>(),
        of::<o::OrganizationCreate>(),
        of::<o::OrganizationPatch>(),
        of::<o::DepartmentCreate>(),
        of::<o::SwitchOrganization>(),
        of::<f::FeatureCreate>(),
        of::<f::EventNotificationCreate>(),
        of::<f::EventNotificationPatch>(),
        of::<f::SendEmail>(),
        of::<bc::BarcodeCreate>(),
        of::<bc::BarcodeValuePatch>(),
        of::<super::rectification::RectificationStepCreate>(),
        of::<t::TaskCreate>(),
        of::<t::TaskPatch>(),
        of::<t::CloneTask>(),
        of::<t::CloneTaskInto>(),
        of::<t::TaskObjectCreate>(),
        of::<t::TaskObjectPatch>(),
        of::<t::PlaneObjectWrite>(),
        of::<t::DetectionRuleWrite>(),
        of::<d::DeviceCreate>(),
        of::<d::DevicePatch>(),
        of::<d::EnrolRequest>(),
        of::<d::DeviceTaskUpsert>(),
        of::<d::StartTask>(),
        of::<d::StopTask>(),
        of::<c::RemoteCamCreate>(),
        of::<c::RemoteCamPatch>(),
        of::<c::BlurRegionsWrite>(),
        of::<c::ScheduleCreate>(),
        of::<c::SchedulePatch>(),
        of::<op::OpcuaBindingCreate>(),
        of::<v::VideoCreate>(),
        of::<v::VideoPatch>(),
        of::<v::RecordRequest>(),
        of::<v::OrgTagCreate>(),
        of::<v::CommentCreate>(),
        of::<tm::CycleVerdict>(),
        of::<tm::ArchiveCycles>(),
        of::<tm::ReviewIssue>(),
        of::<ln::LineBody>(),
        of::<tr::TrainedTaskPatch>(),
        of::<tr::ModelTypeCreate>(),
        of::<tr::ModelTypePatch>(),
        of::<lb::LabelRequestCreate>(),
        of::<ai::AssistantAsk>(),
        of::<s::SsoSignIn>(),
        of::<s::SsoRefresh>(),
        of::<super::service_token::ServiceTokenCreate>(),
        of::<super::files::FileRef>(),
        of::<super::files::NewUrlRequest>(),
        of::<super::files::VerifyRequest>(),
        of::<super::files::FolderRequest>(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_is_refused_on_its_field_and_the_limit_itself_passes() {
        let mut r = a::RegisterRequest {
            name: "a".repeat(PERSON_NAME),
            lastname: String::new(),
            email: "a@b.co".into(),
            password: "x".repeat(PASSWORD),
        };
        assert_eq!(r.check_lengths(), Ok(()));
        r.name.push('a');
        let e = r.check_lengths().unwrap_err();
        assert_eq!(
            (e.field, e.message.as_str()),
            ("name", "Name must be at most 100 characters.")
        );
        r.name.pop();
        r.password.push('x');
        assert_eq!(r.check_lengths().unwrap_err().message, PASSWORD_TOO_LONG);
    }

    #[test]
    fn serde_names_reach_nested_fields() {
        let p: t::TaskPatch = serde_json::from_value(serde_json::json!({
            "processes": [{"name": "P", "steps": [{"name": "S", "substeps": ["x".repeat(101)]}]}],
        }))
        .unwrap();
        let e = p.check_lengths().unwrap_err();
        assert_eq!(
            (e.field, e.message.as_str()),
            (
                "processes",
                "A sub-step name must be at most 100 characters."
            )
        );
        let dev: d::DeviceCreate =
            serde_json::from_value(serde_json::json!({"Serial_number": "s".repeat(101)})).unwrap();
        assert_eq!(dev.check_lengths().unwrap_err().field, "Serial_number");
    }

    #[test]
    fn every_path_names_a_field_of_its_body() {
        // A limit on a path the body does not have would never refuse anything: each
        // path's first name must be one the body's JSON writes (with all fields set).
        for (name, limits) in all() {
            for l in limits {
                assert!(
                    !l.label.is_empty() && l.max > 0 && !l.field().is_empty(),
                    "{name}: {l:?}"
                );
            }
        }
        let names: Vec<&str> = all().iter().map(|(n, _)| *n).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }
}
