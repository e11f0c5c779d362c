//! Organisation calls (spec section 7 "Organisations").

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OrganizationCreate {
    /// Sub-domain name; made from the display name when absent.
    #[serde(default)]
    pub name: Option<String>,
    pub org_name_to_display: String,
    #[serde(default)]
    pub use_proxy_server: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OrganizationPatch {
    pub name: Option<String>,
    pub org_name_to_display: Option<String>,
    pub use_proxy_server: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DepartmentCreate {
    pub name: String,
}

/// `account/linked_organizations/` items (spec "Organisation link").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OrganizationLink {
    pub organization: i64,
    pub organization_name_to_display: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LinkOrganization {
    pub user_id: i64,
    pub organization: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SwitchOrganization {
    pub organization: i64,
    #[serde(default, rename = "organizationDisplayName")]
    pub organization_display_name: Option<String>,
    /// The portal's stored session, carried to the organisation's sub-domain.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub local_storage: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SwitchResult {
    pub organization: i64,
    pub organization_name_to_display: String,
    /// Where the portal continues: the organisation's sub-domain.
    pub url: String,
}

/// The subset of a switch the `organization/organization-switch` calls take.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OrganizationSwitch {
    pub organization: i64,
}
