//! The test app's calls: HTTP with a token, the e-mail outbox, health and OpenAPI.

use super::*;

impl TestApp {
    /// The PostgreSQL database of this app, if it runs on PostgreSQL.
    pub fn pg_url(&self) -> Option<&str> {
        self.pg_db.as_deref()
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Sends a request; `token` as bearer; answers status and JSON (or Null).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> (StatusCode, Value) {
        self.call_with(method, path, body, token, &[]).await
    }

    pub async fn call_with(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> (StatusCode, Value) {
        let mut rb = self.request(method, path, token, headers);
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().await.unwrap();
        let status = r.status();
        let text = r.text().await.unwrap();
        let v = serde_json::from_str(&text).unwrap_or(if text.is_empty() {
            Value::Null
        } else {
            Value::String(text)
        });
        (status, v)
    }

    /// A request to the API's `path`, `token` as bearer, with `headers`.
    fn request(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> reqwest::RequestBuilder {
        let mut rb = self.client.request(
            method,
            format!("{}/{}", self.base, path.trim_start_matches('/')),
        );
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        rb
    }

    /// A raw request (for bodies that are not JSON, or headers of the answer).
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        self.request(method, path, token, headers)
            .send()
            .await
            .unwrap()
    }

    pub async fn get(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None, Some(token)).await
    }
    pub async fn post(&self, path: &str, body: Value, token: Option<&str>) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body), token).await
    }
    pub async fn patch(&self, path: &str, body: Value, token: Option<&str>) -> (StatusCode, Value) {
        self.call(Method::PATCH, path, Some(body), token).await
    }
    pub async fn put(&self, path: &str, body: Value, token: &str) -> (StatusCode, Value) {
        self.call(Method::PUT, path, Some(body), Some(token)).await
    }
    pub async fn delete(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.call(Method::DELETE, path, None, Some(token)).await
    }

    /// The newest outbox message to `to` (subject, body).
    pub async fn last_mail(&self, to: &str) -> Option<(String, String)> {
        let rows = gemba_cloud::db::outbox::list(&self.state.db, Some(to), 1)
            .await
            .unwrap();
        rows.into_iter().next().map(|m| (m.subject, m.body))
    }

    /// The 6-digit code in the newest message to `to`.
    pub async fn last_code(&self, to: &str) -> String {
        let (_, body) = self.last_mail(to).await.expect("a message with a code");
        let i = body.find("code is ").expect("a code in the message") + 8;
        body[i..i + 6].to_string()
    }

    /// The token at the end of the newest link to `to` containing `marker`.
    pub async fn last_link_token(&self, to: &str, marker: &str) -> String {
        let (_, body) = self.last_mail(to).await.expect("a message with a link");
        let i = body.find(marker).expect("the link") + marker.len();
        body[i..].split_whitespace().next().unwrap().to_string()
    }

    /// Signs in through the whole flow (password, e-mail code) and answers the login body.
    pub async fn login(&self, email: &str, password: &str) -> Value {
        let v = self.pending_login(email, password).await;
        self.complete_login(email, v).await
    }

    /// Completes a sign-in answer `v` of `email` that may ask for its one-time code (by
    /// e-mail, as the portal does); the full login body.
    pub async fn complete_login(&self, email: &str, v: Value) -> Value {
        if v["require_otp"] == json!(false) {
            return v;
        }
        let temp = v["token"].as_str().unwrap().to_string();
        let (s, r) = if v["receive_otp_on"].is_null() {
            self.patch("account/set_mfa_method_email/", json!({}), Some(&temp))
                .await
        } else {
            self.call(Method::GET, "account/send_otp_code/", None, Some(&temp))
                .await
        };
        assert_eq!(s, StatusCode::OK, "{r}");
        let code = self.last_code(email).await;
        let (s, full) = self
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{full}");
        full
    }

    /// The super admin's access token.
    pub async fn admin_token(&self) -> String {
        self.login(ADMIN_EMAIL, ADMIN_PASSWORD).await["token"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Creates an organisation as the super admin; answers its id.
    pub async fn create_org(&self, admin: &str, display: &str) -> i64 {
        let (s, v) = self
            .post(
                "organization/",
                json!({"org_name_to_display": display}),
                Some(admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        v["id"].as_i64().unwrap()
    }

    /// A signed-up, verified, approved user with `role` in `org`; answers a full login.
    /// The super admin approves `email` with `role` and assigns `org`.
    pub async fn approve(&self, admin: &str, email: &str, role: &str, org: Option<i64>) {
        let roles = self.get("account/roles/", admin).await.1;
        let role_id = roles
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == role)
            .unwrap()["id"]
            .clone();
        let (s, v) = self
            .put(
                "account/approve_user",
                json!({"email": email, "roleId": role_id}),
                admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        if let Some(o) = org {
            let (s, v) = self
                .put(
                    "account/assign_user_org",
                    json!({"email": email, "organization": o}),
                    admin,
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
    }

    /// The API's OpenAPI document.
    pub async fn openapi(&self) -> Value {
        self.public_json("openapi.json").await
    }

    /// `/api/health`, untyped: its answer is the cloud's own (`gemba_cloud::http::Health`,
    /// not a shared wire type, and only serialised).
    pub async fn health(&self) -> Value {
        self.public_json("health").await
    }

    /// `GET path` without a token, its body as JSON.
    async fn public_json(&self, path: &str) -> Value {
        self.client
            .get(format!("{}/{path}", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn user_in(&self, admin: &str, email: &str, role: &str, org: Option<i64>) -> Value {
        self.signed_up(email, "Test").await;
        self.approve(admin, email, role, org).await;
        self.login(email, PASSWORD).await
    }
}
