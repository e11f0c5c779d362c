//! Account calls (spec section 7 "Account").

use serde::{Deserialize, Serialize};

/// Messages of the spec (section 8) the account calls answer with.
pub mod messages {
    pub const VERIFICATION_SENT: &str =
        "Verification email has been sent please verify to complete registeration!";
    pub const VERIFICATION_SENT_AGAIN: &str =
        "Verification email has been sent again verify to complete registeration!";
    pub const ADMIN_NOTIFIED: &str =
        "Admin has been notified. Your account will be approved within 24 Hours.";
    pub const USER_CREATED: &str = "User created successfully";
    pub const NO_ORGANIZATION: &str = "User is not assigned to any organization";
    pub const TOO_MANY_ATTEMPTS: &str = "Too many attempts.Please try after 1 min.";
    pub const TOKEN_INVALID: &str = "Token expired/Invalid!";
    pub const OTP_SENT: &str = "OTP Sent!";
    pub const USER_APPROVED: &str = "User approved successfully!";
    pub const BAD_CREDENTIALS: &str = "Unable to log in with provided credentials.";
    pub const EMAIL_NOT_VERIFIED: &str = "E-mail is not verified. Please verify your e-mail first.";
    pub const OTP_INVALID: &str = "Invalid or expired OTP.";
    pub const SSO_NOT_CONFIGURED: &str = "Single sign-on is not configured on this server.";
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LoginRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 254))]
    pub email: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub password: String,
}

/// An organisation as the login answer carries it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OrgRef {
    pub id: i64,
    pub name: String,
    pub org_name_to_display: String,
}

/// The login answer (spec section 3 "User (login response)"). With `require_otp`
/// true, `token` is a temporary token that only the MFA calls accept and `refresh`
/// is null.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LoginUser {
    pub id: i64,
    pub name: String,
    pub lastname: String,
    pub email: String,
    pub role: Option<String>,
    pub token: String,
    pub refresh: Option<String>,
    pub session_key: String,
    #[serde(rename = "Organization")]
    pub organization: Option<OrgRef>,
    pub poc: bool,
    pub is_policy_accepted: bool,
    pub require_otp: bool,
    /// The MFA method set up: `email`, `authenticator_app` or `sms`; null when none yet.
    pub receive_otp_on: Option<String>,
    pub is_otp_setup: bool,
    pub has_mobile_number: bool,
}

/// The sign-in answer for an account still awaiting approval.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PendingApproval {
    pub message: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RegisterRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub lastname: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 254))]
    pub email: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EmailRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 254))]
    pub email: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OtpRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub otp: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SmsMethodRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub mobile_number: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RefreshRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 1024))]
    pub refresh: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TokenPair {
    pub access: String,
    pub refresh: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ResetPasswordRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 1024))]
    pub token: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangePasswordRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub old_password: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub new_password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorkstationPasswordRequest {
    pub user: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangeEmailRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 254))]
    pub email: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TokenRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 1024))]
    pub token: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TermsRequest {
    pub terms_and_conditions_accepted: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionCreate {
    pub user: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub browser: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub browser_version: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionEnd {
    pub end_time: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ApproveUser {
    #[cfg_attr(feature = "openapi", schema(max_length = 254))]
    pub email: String,
    #[serde(rename = "roleId")]
    pub role_id: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssignUserOrg {
    #[cfg_attr(feature = "openapi", schema(max_length = 254))]
    pub email: String,
    pub organization: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EmailVerifiedFlag {
    pub is_email_verified: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoleCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
}

/// A user as the user lists show it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UserSummary {
    pub id: i64,
    pub email: String,
    pub name: String,
    pub lastname: String,
    pub username: String,
    pub role: Option<String>,
    pub is_active: bool,
    pub is_email_verified: bool,
    pub is_approved: bool,
    #[serde(rename = "Organization")]
    pub organization: Option<i64>,
    pub created_at: i64,
}

/// `account/linked_users_list/` items.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LinkedUser {
    pub user: LinkedUserRef,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LinkedUserRef {
    pub id: i64,
    pub username: String,
    pub lastname: String,
}

/// A role as `account/roles/` lists it (section 3 "Role").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct RoleRecord {
    pub id: i64,
    pub name: String,
}

/// An activity session (section 3 "Session"); times in ms since the epoch.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct ActivitySession {
    pub id: i64,
    pub user: i64,
    pub browser: String,
    pub browser_version: String,
    pub end_time: i64,
}

/// A locked-out or throttled address, as `account/lockout_list-delete/` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct LoginAttempts {
    pub email: String,
    pub failures: i64,
    pub first_failure_at: i64,
    pub locked_until: i64,
}
