//! `/api/account/…`: identity (spec section 7 "Account").

pub mod login;
pub mod mfa;
pub mod password;
pub mod profile;
pub mod signup;
pub mod sso;
pub mod users;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        // sign-in and tokens
        .routes(routes!(login::login_v2))
        .routes(routes!(login::admin_login))
        .routes(routes!(login::token_refresh))
        .routes(routes!(login::logout))
        // single sign-on
        .routes(routes!(sso::azure_signin))
        .routes(routes!(sso::azure_signup))
        .routes(routes!(sso::google_sso))
        .routes(routes!(sso::refresh_azure_token))
        .routes(routes!(sso::register_for_aws_subscription))
        // second factor
        .routes(routes!(mfa::send_otp_code))
        .routes(routes!(mfa::resend_otp))
        .routes(routes!(mfa::set_mfa_method_email))
        .routes(routes!(
            mfa::set_mfa_method_sms,
            mfa::set_mfa_method_sms_post
        ))
        .routes(routes!(mfa::get_qr_code))
        .routes(routes!(mfa::set_mfa_method_authenticator_app))
        .routes(routes!(mfa::verify_otp_code))
        // sign-up
        .routes(routes!(signup::register))
        .routes(routes!(signup::verify_email))
        .routes(routes!(signup::resend_verification_email))
        .routes(routes!(signup::admin_verification_email))
        .routes(routes!(signup::set_email_verified))
        // passwords and e-mail
        .routes(routes!(password::forgot_password))
        .routes(routes!(password::reset_password))
        .routes(routes!(password::request_change_password))
        .routes(routes!(password::reset_workstation_user_password))
        .routes(routes!(password::request_change_email))
        .routes(routes!(password::verify_email_change))
        // own account and sessions
        .routes(routes!(profile::get_permissions))
        .routes(routes!(profile::accept_terms, profile::delete_account))
        .routes(routes!(profile::lockout_list, profile::lockout_delete))
        .routes(routes!(profile::session_create))
        .routes(routes!(profile::session_update))
        .routes(routes!(profile::retrieve_session))
        // users and roles
        .routes(routes!(users::users_list_v2))
        .routes(routes!(users::users_list))
        .routes(routes!(users::linked_users_list))
        .routes(routes!(users::roles, users::create_role))
        .routes(routes!(users::approve_user))
        .routes(routes!(users::assign_user_org))
}
