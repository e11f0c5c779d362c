//! Identity: sign-up, verification, approval, sign-in with a one-time code, tokens.
//!
//! Also the typed siblings of the sign-in helpers of `common.rs` (which answer the
//! login untyped), for the identity suites ([`crate::flows`], [`crate::tenancy`], …).

use gemba_shared::api::v1::account::{
    ApproveUser, AssignUserOrg, LoginAttempts, LoginRequest, LoginUser, OtpRequest,
    PendingApproval, RefreshRequest, RegisterRequest, RoleRecord, TokenPair, UserSummary,
};
use gemba_shared::api::v1::organization::Organization;
use gemba_shared::api::v1::{Msg, Page};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

/// The bearer of the public calls (sign-up, sign-in, links): empty, which those
/// routes ignore, since the typed client always sends one.
pub(crate) const ANON: &str = "";

/// `v` (an answer the untyped helpers of `common.rs` return) read as `T`.
pub(crate) fn typed<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v.clone())
        .unwrap_or_else(|e| panic!("the answer is no {}: {e}: {v}", std::any::type_name::<T>()))
}

/// A typed request body for the untyped calls, where the test needs what those
/// allow and the typed client does not (no bearer at all, a status of its own).
pub(crate) fn wire<B: Serialize>(body: &B) -> Value {
    serde_json::to_value(body).unwrap()
}

/// [`TestApp::login`], typed: the full sign-in.
pub(crate) async fn login(app: &TestApp, email: &str, password: &str) -> LoginUser {
    typed(app.login(email, password).await)
}

/// [`TestApp::user_in`], typed: a signed-up, approved user, signed in.
pub(crate) async fn user_in(
    app: &TestApp,
    admin: &str,
    email: &str,
    role: &str,
    org: Option<i64>,
) -> LoginUser {
    typed(app.user_in(admin, email, role, org).await)
}

/// [`TestApp::pending_login`], typed: the first step of a sign-in (200).
pub(crate) async fn pending_login(app: &TestApp, email: &str, password: &str) -> LoginUser {
    typed(app.pending_login(email, password).await)
}

/// A sign-in's credentials.
pub(crate) fn credentials(email: &str, password: &str) -> LoginRequest {
    LoginRequest {
        email: email.into(),
        password: password.into(),
    }
}

/// `method path` with `body` as `token`, answered with exactly `status` (where the
/// status itself is under test, e.g. a 202): its body read as `T`.
pub(crate) async fn answered<B: Serialize, T: DeserializeOwned>(
    app: &TestApp,
    method: Method,
    path: &str,
    body: &B,
    token: Option<&str>,
    status: StatusCode,
) -> T {
    let (s, v) = app.call(method, path, Some(wire(body)), token).await;
    assert_eq!(s, status, "{path}: {v}");
    typed(v)
}

/// The roles `account/roles/` lists.
/// With a temporary token `temp`: sign-in codes by e-mail chosen, and one sent.
pub(crate) async fn email_codes_chosen(app: &TestApp, temp: &str) -> Msg {
    app.send_as(
        Method::PATCH,
        "account/set_mfa_method_email/",
        &json!({}),
        temp,
    )
    .await
}

pub(crate) async fn roles(app: &TestApp, admin: &str) -> Vec<RoleRecord> {
    app.get_as("account/roles/", admin).await
}

both!(
    newcomer_signs_up_is_approved_and_signs_in_with_an_email_code,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme Works").await;
        let ann = |email: &str| RegisterRequest {
            name: "Ann".into(),
            lastname: "Lee".into(),
            email: email.into(),
            password: PASSWORD.into(),
        };
        let v: Msg = app
            .create_as("account/register", &ann("Ann@Example.com"), ANON)
            .await;
        assert_eq!(
            v.msg,
            "Verification email has been sent please verify to complete registeration!"
        );
        let ann_login = credentials("ann@example.com", PASSWORD);

        // Not verified yet: sign-in refused.
        let (s, v) = app
            .send_refused(Method::POST, "account/login_v2", &ann_login, ANON)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(
            v["non_field_errors"][0]
                .as_str()
                .unwrap()
                .contains("verify")
        );

        let link = app
            .last_link_token("ann@example.com", "/verify-email/")
            .await;
        let verify = format!("account/verify-email/{link}");
        let v: Msg = app.send_as(Method::PATCH, &verify, &json!({}), ANON).await;
        assert_eq!(
            v.msg,
            "Admin has been notified. Your account will be approved within 24 Hours."
        );
        let (subject, body) = app.last_mail(ADMIN_EMAIL).await.unwrap();
        assert!(subject.contains("awaits approval") && body.contains("ann@example.com"));
        // The same link does not work twice.
        let (s, v) = app
            .send_refused(Method::PATCH, &verify, &json!({}), ANON)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["token"][0], "Token expired/Invalid!");

        // Awaiting approval.
        let v: PendingApproval = answered(
            &app,
            Method::POST,
            "account/login_v2",
            &ann_login,
            None,
            StatusCode::ACCEPTED,
        )
        .await;
        assert_eq!(v.message, "User created successfully");

        // Pending users are the inactive ones.
        let v: Page<UserSummary> = app
            .get_as(
                "account/users_list/v2?is_admin=true&is_active=false",
                &admin,
            )
            .await;
        assert_eq!(v.count, 1);
        assert_eq!(v.results[0].email, "ann@example.com");

        let roles = roles(&app, &admin).await;
        let org_user = roles.iter().find(|r| r.name == "org_user").unwrap().id;
        let approve = |role_id| ApproveUser {
            email: "ann@example.com".into(),
            role_id,
        };
        let v: Msg = app
            .send_as(
                Method::PUT,
                "account/approve_user",
                &approve(org_user),
                &admin,
            )
            .await;
        assert_eq!(v.msg, "User approved successfully!");
        // Approving again changes nothing and mails nothing.
        let mails = app.last_mail("ann@example.com").await;
        let admin_role = roles[0].id;
        let (s, v) = app
            .send_refused(
                Method::PUT,
                "account/approve_user",
                &approve(admin_role),
                &admin,
            )
            .await;
        assert_eq!(
            (s, v["email"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("This user is already approved.")
            )
        );
        assert_eq!(
            app.user_row("ann@example.com").await.role.as_deref(),
            Some("org_user")
        );
        assert_eq!(app.last_mail("ann@example.com").await, mails);

        // Approved but without an organisation.
        let (s, v) = app
            .send_refused(Method::POST, "account/login_v2", &ann_login, ANON)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v["non_field_errors"][0],
            "User is not assigned to any organization"
        );

        let assign = AssignUserOrg {
            email: "ann@example.com".into(),
            organization: org,
        };
        let _: Msg = app
            .send_as(Method::PUT, "account/assign_user_org", &assign, &admin)
            .await;

        // Password → temporary session → choose e-mail → code → full session.
        let v: LoginUser = app
            .send_as(Method::POST, "account/login_v2", &ann_login, ANON)
            .await;
        assert!(v.require_otp);
        assert!(v.refresh.is_none());
        let temp = v.token;
        // A temporary token opens nothing but the MFA calls.
        let (s, _) = app.get("organization/", &temp).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let v = email_codes_chosen(&app, &temp).await;
        assert_eq!(v.msg, "OTP Sent!");
        let code = app.last_code("ann@example.com").await;
        let otp = |otp: &str| OtpRequest { otp: otp.into() };
        let (s, v) = app
            .send_refused(
                Method::POST,
                "account/verify_otp_code/",
                &otp("12345"),
                &temp,
            )
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Please enter the 6-digit OTP")
            )
        );
        let wrong = if code == "000000" { "111111" } else { "000000" };
        let (s, _) = app
            .send_refused(Method::POST, "account/verify_otp_code/", &otp(wrong), &temp)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let full: LoginUser = app
            .send_as(Method::POST, "account/verify_otp_code/", &otp(&code), &temp)
            .await;
        assert!(!full.require_otp);
        assert_eq!(full.role.as_deref(), Some("org_user"));
        let o = full.organization.as_ref().unwrap();
        assert_eq!(o.id, org);
        assert_eq!(o.org_name_to_display, "Acme Works");
        let v: Vec<Organization> = app.get_as("organization/", &full.token).await;
        assert_eq!(v.len(), 1);
    }
);

both!(
    refresh_tokens_rotate_and_reuse_revokes_the_session,
    |app: TestApp| async move {
        let login = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let r1 = login.refresh.unwrap();
        let refresh = |refresh: &str| RefreshRequest {
            refresh: refresh.into(),
        };
        let v: TokenPair = app
            .send_as(Method::POST, "account/token/refresh/", &refresh(&r1), ANON)
            .await;
        let (r2, a2) = (v.refresh, v.access);
        assert_ne!(r1, r2);
        let r = app
            .client
            .get(format!("{}/account/get-permissions/", app.base))
            .bearer_auth(&a2)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.text().await.unwrap(), "true");
        // Presenting the spent token again revokes the whole session.
        for r in [&r1, &r2] {
            let (s, _) = app
                .send_refused(Method::POST, "account/token/refresh/", &refresh(r), ANON)
                .await;
            assert_eq!(s, StatusCode::UNAUTHORIZED);
        }
        assert_eq!(
            app.get("account/get-permissions/", &a2).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
);

both!(logout_ends_the_session, |app: TestApp| async move {
    let login = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let t = &login.token;
    let _: Msg = app
        .send_as(Method::PATCH, "account/logout/", &json!({}), t)
        .await;
    assert_eq!(
        app.get("account/get-permissions/", t).await.0,
        StatusCode::UNAUTHORIZED
    );
    let refresh = RefreshRequest {
        refresh: login.refresh.clone().unwrap(),
    };
    let (s, _) = app
        .send_refused(Method::POST, "account/token/refresh/", &refresh, ANON)
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
});

both!(
    repeated_failures_lock_the_address_with_429,
    |app: TestApp| async move {
        let wrong = credentials(ADMIN_EMAIL, "wrong-pass-1");
        for _ in 0..5 {
            let (s, v) = app
                .send_refused(Method::POST, "account/login_v2", &wrong, ANON)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
            assert_eq!(
                v["non_field_errors"][0],
                "Unable to log in with provided credentials."
            );
        }
        // Locked: even the right password is refused for a minute.
        let right = credentials(ADMIN_EMAIL, ADMIN_PASSWORD);
        let (s, v) = app
            .send_refused(Method::POST, "account/login_v2", &right, ANON)
            .await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(v["detail"], "Too many attempts.Please try after 1 min.");
        // Another admin lifts the lockout.
        gemba_cloud::create_admin(&app.state, "root2@gemba.test", ADMIN_PASSWORD)
            .await
            .unwrap();
        let a2 = login(&app, "root2@gemba.test", ADMIN_PASSWORD).await.token;
        let v: Vec<LoginAttempts> = app.get_as("account/lockout_list-delete/", &a2).await;
        assert_eq!(v[0].email, ADMIN_EMAIL);
        let (s, _) = app
            .delete(
                &format!("account/lockout_list-delete/?user={ADMIN_EMAIL}"),
                &a2,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let _: LoginUser = app
            .send_as(Method::POST, "account/login_v2", &right, ANON)
            .await;
    }
);

both!(
    bad_sign_up_input_gets_field_errors_and_creates_nothing,
    |app: TestApp| async move {
        let cases = [
            (
                json!({"name": "Ann1", "email": "a@b.co", "password": PASSWORD}),
                "name",
                "Invalid Name. Valid name only contain letters, dashes (-) and spaces",
            ),
            (
                json!({"name": " ", "email": "a@b.co", "password": PASSWORD}),
                "name",
                "Name is required!",
            ),
            (
                json!({"name": "Ann", "email": "not-an-email", "password": PASSWORD}),
                "email",
                "Enter a valid email address.",
            ),
            (
                json!({"name": "Ann", "email": "a@b.co", "password": "short"}),
                "password",
                "This password is too short. It must contain at least 8 characters.",
            ),
            (
                json!({"name": "Ann", "password": PASSWORD}),
                "email",
                "This field is required.",
            ),
            (
                json!({"name": 5, "email": "a@b.co", "password": PASSWORD}),
                "name",
                "",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app.post("account/register", body.clone(), None).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
            let got = v[field][0]
                .as_str()
                .unwrap_or_else(|| panic!("{field} error for {body}: {v}"));
            assert!(got.starts_with(msg), "{got}");
        }
        // Malformed JSON and a wrong content type.
        let r = app
            .client
            .post(format!("{}/account/register", app.base))
            .header("content-type", "application/json")
            .body("{\"name\":")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let r = app
            .client
            .post(format!("{}/account/register", app.base))
            .body("name=x")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        // A huge body.
        let big = "x".repeat(2 * 1024 * 1024);
        let (s, _) = app
            .post(
                "account/register",
                json!({"name": big, "email": "a@b.co", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
        // Nothing was created, nothing was mailed.
        let admin = app.admin_token().await;
        let v: Page<UserSummary> = app
            .get_as("account/users_list/v2?is_admin=true", &admin)
            .await;
        assert_eq!(v.count, 1, "{v:?}");
        assert!(app.last_mail("a@b.co").await.is_none());
        // Duplicate e-mail.
        let ann = |email: &str| RegisterRequest {
            name: "Ann".into(),
            lastname: String::new(),
            email: email.into(),
            password: PASSWORD.into(),
        };
        let _: Msg = app
            .create_as("account/register", &ann("dup@b.co"), ANON)
            .await;
        let (s, v) = app
            .send_refused(Method::POST, "account/register", &ann("DUP@b.co"), ANON)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["email"][0], "user with this email already exists.");
    }
);

both!(
    non_admins_get_403_from_get_permissions,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Beta").await;
        let u = user_in(&app, &admin, "u@beta.test", "org_admin", Some(org)).await;
        let (s, _) = app.get("account/get-permissions/", &u.token).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);
