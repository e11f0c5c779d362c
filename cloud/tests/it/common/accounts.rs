//! Users, organisations and sign-in, as the tests make them through the API.

use super::*;

impl TestApp {
    /// Registers `email` (named `name`, password [`PASSWORD`]) and confirms the address
    /// through the mailed link: an account awaiting approval.
    pub async fn signed_up(&self, email: &str, name: &str) {
        let (s, v) = self
            .post(
                "account/register",
                json!({"name": name, "lastname": "User", "email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let token = self.last_link_token(email, "/verify-email/").await;
        let (s, v) = self
            .patch(&format!("account/verify-email/{token}"), json!({}), None)
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }

    /// The first step of a sign-in: `login_v2`, expected to answer 200 (a temporary
    /// token when a code is required).
    pub async fn pending_login(&self, email: &str, password: &str) -> Value {
        let (s, v) = self
            .post(
                "account/login_v2",
                json!({"email": email, "password": password}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "login {email}: {v}");
        v
    }

    /// The stored user (straight from the database).
    pub async fn user_row(&self, email: &str) -> gemba_cloud::db::UserRow {
        gemba_cloud::db::users::by_email(&self.state.db, email)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("no user {email}"))
    }

    /// `email`'s pending authenticator secret in plain, as the QR code shows it (the
    /// database holds it sealed with the server's TOTP key).
    pub async fn pending_totp_secret(&self, email: &str) -> String {
        let row = self.user_row(email).await;
        let sealed = row.totp_pending_secret.expect("a pending secret");
        self.state
            .totp
            .open(row.id, &sealed)
            .expect("a sealed secret")
    }

    /// A verified, approved user with `role` and password [`PASSWORD`], linked to `orgs`
    /// (the first becomes current), written straight to the database: quicker than
    /// [`TestApp::user_in`] where the sign-up itself is not under test. No MFA method
    /// is set up. Answers the id.
    /// The super admin subscribes `org` to the seeded feature `name`.
    pub async fn subscribe(&self, admin: &str, org: i64, name: &str) {
        let (_, features) = self.get("feature_control/feature/", admin).await;
        let id = features
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name} is seeded"))["id"]
            .clone();
        let (s, v) = self
            .post(
                "feature_control/subscribed_feature/",
                serde_json::json!({"Feature": id, "Organization": org}),
                Some(admin),
            )
            .await;
        assert!(s.is_success(), "{v}");
    }

    /// A user with `role` in `org`, signed in: the access token.
    pub async fn signed_in(&self, email: &str, role: &str, org: i64) -> String {
        self.quick_user(email, "Eng", role, &[org]).await;
        token(&self.login(email, PASSWORD).await)
    }

    pub async fn quick_user(&self, email: &str, name: &str, role: &str, orgs: &[i64]) -> i64 {
        use gemba_cloud::db::users;
        let hash = self.state.passwords.hash(PASSWORD.into()).await.unwrap();
        let id = users::insert(
            &self.state.db,
            &users::NewUser {
                email,
                name,
                lastname: "User",
                password_hash: &hash,
                role: Some(gemba_shared::Role::parse(role).expect("a role")),
                is_active: true,
                is_email_verified: true,
                is_approved: true,
                require_otp: true,
            },
        )
        .await
        .unwrap();
        for o in orgs {
            users::link(&self.state.db, id, *o).await.unwrap();
        }
        id
    }
}

/// Two organisations for a test of a task's calls: A subscribed to Define Operation and
/// Record Training Set, with its engineer and analyst and a task of the engineer's; B
/// with an engineer of its own.
pub struct TaskOrgs {
    pub a: i64,
    pub eng: String,
    pub analyst: String,
    pub eng_b: String,
    pub task: gemba_shared::api::v1::task::Task,
}

impl TestApp {
    /// [`TaskOrgs`] named `{name} A` and `{name} B`, their users at
    /// `…@{name lowercase}-a.test` and `-b.test`.
    pub async fn task_orgs(&self, admin: &str, name: &str) -> TaskOrgs {
        use gemba_shared::api::v1::task::TaskCreate;
        let slug = name.to_lowercase();
        let a = self.create_org(admin, &format!("{name} A")).await;
        let b = self.create_org(admin, &format!("{name} B")).await;
        for f in ["Define Operation", "Record Training Set"] {
            self.subscribe(admin, a, f).await;
        }
        let eng = self
            .signed_in(&format!("eng@{slug}-a.test"), "org_user", a)
            .await;
        let analyst = self
            .signed_in(&format!("analyst@{slug}-a.test"), "analytics_user", a)
            .await;
        let eng_b = self
            .signed_in(&format!("eng@{slug}-b.test"), "org_user", b)
            .await;
        let task = self
            .create_as(
                "organization/task/",
                &TaskCreate {
                    task_detail: Some("Pump\nFit:\nPlace;\n".into()),
                    ..TaskCreate::default()
                },
                &eng,
            )
            .await;
        TaskOrgs {
            a,
            eng,
            analyst,
            eng_b,
            task,
        }
    }
}
