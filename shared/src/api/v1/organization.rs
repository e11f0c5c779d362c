//! Organisation calls (spec section 7 "Organisations").

use serde::{Deserialize, Serialize};

/// An organisation (spec section 3 "Organisation").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Organization {
    pub id: i64,
    /// The sub-domain name: `{name}.{base_domain}`.
    pub name: String,
    pub org_name_to_display: String,
    pub use_proxy_server: bool,
    /// Unix milliseconds.
    pub created_at: i64,
    /// The organisation's time zone (IANA name, `UTC` by default): devices' schedules
    /// are read in it. (Optional in TypeScript until the portal's screens use it.)
    #[serde(default = "utc")]
    #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
    pub time_zone: String,
}

fn utc() -> String {
    "UTC".into()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OrganizationCreate {
    /// Sub-domain name; made from the display name when absent.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 63))]
    pub name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub org_name_to_display: String,
    #[serde(default)]
    pub use_proxy_server: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct OrganizationPatch {
    #[cfg_attr(feature = "openapi", schema(max_length = 63))]
    pub name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub org_name_to_display: Option<String>,
    pub use_proxy_server: Option<bool>,
    /// An IANA time zone name (`Europe/Berlin`, `UTC`).
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub time_zone: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DepartmentCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
}

/// `account/linked_organizations/` items (spec "Organisation link").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OrganizationLink {
    pub organization: i64,
    pub organization_name_to_display: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LinkOrganization {
    pub user_id: i64,
    pub organization: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SwitchOrganization {
    pub organization: i64,
    #[serde(default, rename = "organizationDisplayName")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub organization_display_name: Option<String>,
    /// The portal's stored session, carried to the organisation's sub-domain.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub local_storage: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SwitchResult {
    pub organization: i64,
    pub organization_name_to_display: String,
    /// Where the portal continues: the organisation's sub-domain.
    pub url: String,
}

/// The subset of a switch the `organization/organization-switch` calls take.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OrganizationSwitch {
    pub organization: i64,
}

/// A department of an organisation (section 3 "Department").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Department {
    pub id: i64,
    pub organization: i64,
    pub name: String,
}

/// One change an administrator made (`GET /organization/audit_log/`): a changing call
/// (POST, PUT, PATCH or DELETE) of a super admin, organisation admin or support user,
/// whatever its answer. Never the request's body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct AuditEntry {
    pub id: i64,
    /// Unix milliseconds, when the answer went out.
    pub at: i64,
    pub user_id: i64,
    /// The user's e-mail and role at the time.
    pub email: String,
    pub role: String,
    /// The client's address (behind a trusted proxy, the one it forwarded).
    pub client_ip: String,
    /// The organisation the call acted in; none for a super admin acting outside one.
    pub organization_id: Option<i64>,
    pub method: String,
    /// The route template, `/api/organization/{id}/`.
    pub route: String,
    /// The route's parameters, `id=7 user=3` (secrets such as tokens and codes left out).
    pub target: String,
    /// The answer's HTTP status.
    pub status: i64,
}
