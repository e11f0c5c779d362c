//! The nine roles of the spec (section 6) and the permission matrix.
//!
//! Invariant: this module is the only place that says which role may do what.
//! The cloud enforces [`Role::can`] on every call; the portal only hides what the
//! server already forbids.

use serde::{Deserialize, Serialize};

/// A user's role, by the spec's value (`admin`, `org_admin`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Admin,
    OrgAdmin,
    OrgUser,
    User,
    Labeler,
    AnalyticsUser,
    WorkstationUser,
    SupportUser,
    DocUser,
}

impl Role {
    pub const ALL: [Role; 9] = [
        Role::Admin,
        Role::OrgAdmin,
        Role::OrgUser,
        Role::User,
        Role::Labeler,
        Role::AnalyticsUser,
        Role::WorkstationUser,
        Role::SupportUser,
        Role::DocUser,
    ];

    /// The value stored and sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::OrgAdmin => "org_admin",
            Role::OrgUser => "org_user",
            Role::User => "user",
            Role::Labeler => "labeler",
            Role::AnalyticsUser => "analytics_user",
            Role::WorkstationUser => "workstation_user",
            Role::SupportUser => "support_user",
            Role::DocUser => "doc_user",
        }
    }

    /// The label the portal shows.
    pub fn label(self) -> &'static str {
        match self {
            Role::Admin => "Super Admin",
            Role::OrgAdmin => "Organization Admin",
            Role::OrgUser => "Organization User",
            Role::User => "User",
            Role::Labeler => "Labeler",
            Role::AnalyticsUser => "Analytics User",
            Role::WorkstationUser => "Workstation User",
            Role::SupportUser => "Support User",
            Role::DocUser => "Docs User",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Roles that may sign in without belonging to an organisation.
    pub fn needs_organization(self) -> bool {
        !matches!(self, Role::Admin | Role::Labeler)
    }

    /// Whether this role holds `p` (the permission matrix).
    pub fn can(self, p: Permission) -> bool {
        use Permission::*;
        use Role::*;
        match p {
            // Super admin only.
            ManageOrganizations
            | ManageAllUsers
            | ApproveUsers
            | ManageRoles
            | ManageFeatures
            | ReadOutbox
            | ManageLockouts
            | ManageLinkedOrganizations
            | ManageModelTypes
            | ManageReleases
            | AdminArea => self == Admin,
            // Organisation administration.
            ManageDepartments | ManageOrgUsers | ManageEventNotifications => {
                matches!(self, Admin | OrgAdmin | SupportUser)
            }
            SendEmail => matches!(self, Admin | OrgAdmin | SupportUser),
            // The audit log (docs/decisions.md "The audit log"): the super admin reads
            // every organisation's, an organisation admin its own; the support user's
            // changes are in it, so it does not read it.
            ReadAuditLog => matches!(self, Admin | OrgAdmin),
            // The Users screen: see docs/decisions.md ("Who sees org-users").
            ViewOrgUsers => matches!(self, Admin | OrgAdmin | SupportUser | User | DocUser),
            // Every signed-in role may read its own organisations and their features.
            ViewOrganizations | ViewFeatures => true,
            // Operations (docs/decisions.md "Who defines operations"): read by every role
            // of the user area (analytics names its tasks), changed by those with the
            // Define Operation screen.
            ViewTasks => matches!(
                self,
                Admin | OrgAdmin | OrgUser | User | SupportUser | DocUser | AnalyticsUser
            ),
            ManageTasks => matches!(
                self,
                Admin | OrgAdmin | OrgUser | User | SupportUser | DocUser
            ),
            // Devices (docs/decisions.md "Who manages devices"): the user area's roles
            // see devices and run tasks on them; those with the Add Device screen add,
            // enrol, revoke, archive and delete them.
            ViewDevices | OperateDevices => matches!(
                self,
                Admin | OrgAdmin | OrgUser | User | SupportUser | DocUser
            ),
            ManageDevices => matches!(self, Admin | OrgAdmin | SupportUser),
            // The OPC screen (docs/decisions.md "The OPC UA explorer's relay"): the device roles but
            // the docs user, whose sidebar has no OPC (spec section 6).
            ExploreOpcua => matches!(self, Admin | OrgAdmin | OrgUser | User | SupportUser),
            // Videos (docs/decisions.md "Who records and sees training video"): those who
            // define operations record them; labelers reach only the tasks requested of
            // them, through the labeler area's own calls.
            ViewVideos | ManageVideos | LabelVideos => matches!(
                self,
                Admin | OrgAdmin | OrgUser | User | SupportUser | DocUser
            ),
            // The labeler area: labelers only (docs/decisions.md "The labeler area").
            LabelRequested => matches!(self, Labeler),
            // Cycles and their analytics: every role of the user area (the analytics
            // user's screens are all about them).
            ViewCycles => matches!(
                self,
                Admin | OrgAdmin | OrgUser | User | SupportUser | DocUser | AnalyticsUser
            ),
            // Correcting cycles (docs/decisions.md "Who corrects cycles"): a verdict,
            // archiving, restoring and deleting, by those who define the operations; the
            // analytics user only reads.
            ManageCycles => matches!(self, Admin | OrgAdmin | OrgUser | User | SupportUser),
            // Lines (docs/decisions.md "Lines"): defined by those with the Line screen,
            // read by every reader of cycles (line analytics and visibility).
            ManageLines => matches!(self, Admin | OrgAdmin | OrgUser | User | SupportUser),
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a call needs. Each API handler names exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Permission {
    ManageOrganizations,
    ViewOrganizations,
    ManageLinkedOrganizations,
    ManageDepartments,
    ManageAllUsers,
    ManageOrgUsers,
    ViewOrgUsers,
    ApproveUsers,
    ManageRoles,
    ManageFeatures,
    ViewFeatures,
    ManageEventNotifications,
    SendEmail,
    ReadOutbox,
    ManageLockouts,
    /// Read the audit log of administrators' changes.
    ReadAuditLog,
    /// The admin screens (`/admin/…`); the portal asks through `get-permissions/`.
    AdminArea,
    /// The platform's model types and their model files (admin Model Types).
    ManageModelTypes,
    /// Agent releases and their roll-outs, and the fleet's devices (admin Updates and
    /// Instances).
    ManageReleases,
    ViewTasks,
    ManageTasks,
    ViewDevices,
    /// Start and stop tasks on a device's cameras, change its name and settings.
    OperateDevices,
    ManageDevices,
    /// The OPC UA explorer: ask a device to discover, browse and read OPC UA servers,
    /// and bind their nodes to a camera's cycles.
    ExploreOpcua,
    /// List and play a task's videos.
    ViewVideos,
    /// Upload, record and delete a task's videos.
    ManageVideos,
    /// Label a task's videos (step segments).
    LabelVideos,
    /// The labeler area: the tasks requested of the labeler, their videos and labels.
    LabelRequested,
    /// Read the organisation's cycles (telemetry, analytics).
    ViewCycles,
    /// Mark cycles good or bad, archive, restore and delete them.
    ManageCycles,
    /// Define production lines (stations in order, takt time).
    ManageLines,
}

impl Permission {
    pub const ALL: [Permission; 32] = [
        Permission::ManageOrganizations,
        Permission::ViewOrganizations,
        Permission::ManageLinkedOrganizations,
        Permission::ManageDepartments,
        Permission::ManageAllUsers,
        Permission::ManageOrgUsers,
        Permission::ViewOrgUsers,
        Permission::ApproveUsers,
        Permission::ManageRoles,
        Permission::ManageFeatures,
        Permission::ViewFeatures,
        Permission::ManageEventNotifications,
        Permission::SendEmail,
        Permission::ReadOutbox,
        Permission::ManageLockouts,
        Permission::ReadAuditLog,
        Permission::AdminArea,
        Permission::ManageModelTypes,
        Permission::ManageReleases,
        Permission::ViewTasks,
        Permission::ManageTasks,
        Permission::ViewDevices,
        Permission::OperateDevices,
        Permission::ManageDevices,
        Permission::ExploreOpcua,
        Permission::ViewVideos,
        Permission::ManageVideos,
        Permission::LabelVideos,
        Permission::LabelRequested,
        Permission::ViewCycles,
        Permission::ManageCycles,
        Permission::ManageLines,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_values_round_trip() {
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Some(r));
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
        }
        assert_eq!(Role::parse("root"), None);
    }

    #[test]
    fn only_admin_manages_organizations() {
        for r in Role::ALL {
            assert_eq!(
                r.can(Permission::ManageOrganizations),
                r == Role::Admin,
                "{r}"
            );
        }
    }

    #[test]
    fn org_user_has_no_users_screen_but_org_admin_does() {
        assert!(!Role::OrgUser.can(Permission::ViewOrgUsers));
        assert!(Role::OrgAdmin.can(Permission::ViewOrgUsers));
        assert!(Role::SupportUser.can(Permission::ManageOrgUsers));
        assert!(!Role::Labeler.can(Permission::ViewOrgUsers));
    }
}
