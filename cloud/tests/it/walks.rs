//! The three walks of issue 2 ("Security and bad input"), each over every call the
//! server has. The list of calls comes from `/api/openapi.json` at test time, so a
//! call added to the server without an entry here fails these tests.
//!
//! 1. Role matrix: every call with every one of the nine roles; the expected outcome
//!    comes from [`Role::can`], the one matrix in `gemba-shared`.
//! 2. Tenancy: a user of organisation A calls everything that takes an id with B's
//!    ids (and every call with B in the `Organization` header or host); B is unchanged.
//! 3. Bad input: every body-taking call gets malformed JSON, non-objects, wrong types,
//!    missing fields, a 2 MiB body and unknown ids; a 4xx in the API's error shape,
//!    never a 500, and nothing is written.

use std::collections::{BTreeMap, BTreeSet};

use gemba_shared::{Permission, Role};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

// ----- the OpenAPI document ----------------------------------------------------------

async fn openapi(app: &TestApp) -> Value {
    app.openapi().await
}

/// One operation of the document.
struct Op<'a> {
    /// `"GET /account/users_list/v2"`: the method and the path as the document writes it.
    key: String,
    method: String,
    path: String,
    op: &'a Value,
    doc: &'a Value,
}

impl<'a> Op<'a> {
    fn params(&self, place: &str) -> Vec<(&'a str, &'a Value)> {
        self.op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == place)
            .map(|p| (p["name"].as_str().unwrap(), p))
            .collect()
    }

    /// The request body's schema (references resolved), when the call takes a body.
    fn body_schema(&self) -> Option<&'a Value> {
        let s = self
            .op
            .pointer("/requestBody/content/application~1json/schema")?;
        Some(resolve(self.doc, s))
    }

    fn body_props(&self) -> Vec<(&'a str, &'a Value)> {
        self.body_schema()
            .and_then(|s| s["properties"].as_object())
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), resolve_nullable(self.doc, v)))
            .collect()
    }

    fn required(&self) -> Vec<&'a str> {
        self.body_schema()
            .and_then(|s| s["required"].as_array())
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }

    /// Does the call name a record by an integer id (path, query or body)? Paging
    /// numbers are not ids.
    fn takes_id(&self) -> bool {
        let id_param = |(name, p): &(&str, &Value)| {
            is_type(&p["schema"], "integer") && !matches!(*name, "page" | "limit")
        };
        self.params("path").iter().any(id_param)
            || self.params("query").iter().any(id_param)
            || self.body_props().iter().any(|(_, s)| is_type(s, "integer"))
    }
}

fn resolve<'a>(doc: &'a Value, s: &'a Value) -> &'a Value {
    match s["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("unresolved {r}")),
        None => s,
    }
}

/// `s` resolved; for a nullable reference (`oneOf: [null, $ref]`), what it refers to.
fn resolve_nullable<'a>(doc: &'a Value, s: &'a Value) -> &'a Value {
    let s = resolve(doc, s);
    match s["oneOf"].as_array() {
        Some(branches) => branches
            .iter()
            .find(|b| b["type"] != "null")
            .map_or(s, |b| resolve(doc, b)),
        None => s,
    }
}

/// `type: "integer"` or `type: ["integer", "null"]`.
fn is_type(schema: &Value, t: &str) -> bool {
    match &schema["type"] {
        Value::String(s) => s == t,
        Value::Array(a) => a.iter().any(|x| x == t),
        _ => false,
    }
}

fn ops(doc: &Value) -> Vec<Op<'_>> {
    let mut out = vec![];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !matches!(method.as_str(), "get" | "post" | "put" | "patch" | "delete") {
                continue;
            }
            out.push(Op {
                key: format!("{} {path}", method.to_uppercase()),
                method: method.to_uppercase(),
                path: path.clone(),
                op,
                doc,
            });
        }
    }
    assert!(out.len() > 40, "the document lists the calls");
    out
}

/// Fails with the calls the document has but `covered` lacks, and the reverse.
fn assert_covers(doc: &Value, covered: &BTreeSet<&str>, what: &str, only: impl Fn(&Op) -> bool) {
    let served: BTreeSet<String> = ops(doc)
        .iter()
        .filter(|o| only(o))
        .map(|o| o.key.clone())
        .collect();
    let missing: Vec<&String> = served
        .iter()
        .filter(|k| !covered.contains(k.as_str()))
        .collect();
    let stale: Vec<&&str> = covered.iter().filter(|k| !served.contains(**k)).collect();
    assert!(
        missing.is_empty(),
        "calls the server has with no entry in the {what}: {missing:#?}"
    );
    assert!(
        stale.is_empty(),
        "entries in the {what} for calls the server lacks: {stale:#?}"
    );
}

// ----- requests ----------------------------------------------------------------------

/// The API's error shape: `{"field": ["message", …], …}` or `{"detail": "message"}`.
fn is_error_shape(v: &Value) -> bool {
    match v.as_object() {
        Some(o) if o.get("detail").is_some_and(Value::is_string) => true,
        Some(o) if !o.is_empty() => o.values().all(|m| {
            m.as_array()
                .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string))
        }),
        _ => false,
    }
}

/// Sends `body` as raw bytes with `content_type`.
async fn raw(
    app: &TestApp,
    method: &str,
    url: &str,
    token: &str,
    headers: &[(&str, String)],
    body: Option<(Vec<u8>, Option<&str>)>,
) -> (StatusCode, Value) {
    let mut rb = app
        .client
        .request(
            Method::from_bytes(method.as_bytes()).unwrap(),
            format!("{}/{}", app.base, url.trim_start_matches('/')),
        )
        .bearer_auth(token);
    for (k, v) in headers {
        rb = rb.header(*k, v);
    }
    if let Some((bytes, ct)) = body {
        if let Some(ct) = ct {
            rb = rb.header("content-type", ct);
        }
        rb = rb.body(bytes);
    }
    let r = rb
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = r.status();
    let text = r.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A call as the walks make it.
struct Call {
    /// The operation, as in [`Op::key`].
    op: &'static str,
    /// The URL under `/api/`, with real ids and query.
    url: String,
    body: Option<Value>,
    need: Need,
    /// A caller without the permission may get 404 instead of 403: the record is
    /// hidden from it rather than refused.
    hides: bool,
}

/// Who may make a call.
#[derive(Debug, Clone, Copy)]
enum Need {
    /// Anyone; a token, when sent, is ignored.
    Public,
    /// A sign-in in progress (the temporary token) or a full one: the MFA calls.
    Pending,
    /// Any signed-in user; the call reaches only the caller's own data.
    SignedIn,
    /// A role that holds this permission.
    Perm(Permission),
}

impl Need {
    fn allows(self, role: Role) -> bool {
        match self {
            Need::Public | Need::Pending | Need::SignedIn => true,
            Need::Perm(p) => role.can(p),
        }
    }

    /// The call takes the tenant scope of the request (a full sign-in).
    fn scoped(self) -> bool {
        matches!(self, Need::SignedIn | Need::Perm(_))
    }
}

/// A call to the operation's own path; [`Call::at`] sets ids and a query.
fn call(op: &'static str, body: Option<Value>, need: Need) -> Call {
    Call {
        op,
        url: op.split_once(" /").unwrap().1.to_string(),
        body,
        need,
        hides: false,
    }
}

impl Call {
    fn at(mut self, url: impl Into<String>) -> Call {
        self.url = url.into();
        self
    }

    fn hiding(mut self) -> Call {
        self.hides = true;
        self
    }

    fn method(&self) -> &'static str {
        self.op.split_once(' ').unwrap().0
    }

    async fn send(
        &self,
        app: &TestApp,
        token: &str,
        headers: &[(&str, String)],
    ) -> (StatusCode, Value) {
        let body = self
            .body
            .as_ref()
            .map(|b| (serde_json::to_vec(b).unwrap(), Some("application/json")));
        raw(app, self.method(), &self.url, token, headers, body).await
    }
}

// ----- set-up ------------------------------------------------------------------------

/// A signed-in user as the walks need it.
struct Me {
    role: Role,
    token: String,
    id: i64,
    email: String,
    password: &'static str,
    refresh: String,
    session_key: String,
    /// An activity session of this user.
    activity: i64,
    /// A user of the caller's organisation this caller may try to delete.
    victim: i64,
}

async fn me(app: &TestApp, role: Role, login: Value, password: &'static str, victim: i64) -> Me {
    let token = token(&login);
    let id = login["id"].as_i64().unwrap();
    let (s, v) = app
        .post(
            "account/session/create/",
            json!({"user": id, "browser": "walk", "browser_version": "1"}),
            Some(&token),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    Me {
        role,
        token,
        id,
        email: login["email"].as_str().unwrap().into(),
        password,
        refresh: login["refresh"].as_str().unwrap().into(),
        session_key: login["session_key"].as_str().unwrap().into(),
        activity: v["id"].as_i64().unwrap(),
        victim,
    }
}

async fn user_id(app: &TestApp, email: &str) -> i64 {
    gemba_cloud::db::users::by_email(&app.state.db, email)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// Registers `email` and confirms the address: an account awaiting approval.
async fn pending(app: &TestApp, email: &str) -> i64 {
    app.signed_up(email, "Walk").await;
    user_id(app, email).await
}

async fn role_id(app: &TestApp, admin: &str, role: Role) -> i64 {
    let (_, roles) = app.get("account/roles/", admin).await;
    roles
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == role.as_str())
        .unwrap()["id"]
        .as_i64()
        .unwrap()
}

/// An approved user with `role` in `org` who has not signed in.
async fn approved(app: &TestApp, admin: &str, email: &str, role: Role, org: Option<i64>) -> i64 {
    let id = pending(app, email).await;
    app.approve(admin, email, role.as_str(), org).await;
    id
}

/// The records the role matrix's calls name.
struct World {
    org_a: i64,
    /// An organisation the super admin deletes.
    doomed: i64,
    /// `linked` is linked to it; the super admin removes the link.
    other_org: i64,
    linked: i64,
    /// A workstation user of A (password resets, links, switches).
    ws: i64,
    pending_email: String,
    pending_id: i64,
    user_role: i64,
    /// An address locked out after failed sign-ins.
    locked: &'static str,
    /// A feature no organisation is subscribed to; the super admin subscribes A.
    feature: i64,
    /// A feature the super admin deletes.
    doomed_feature: i64,
    /// `other_org`'s subscription to `feature`; the super admin ends it.
    subscription: i64,
    /// A's event notification ('Task Update'), which A's managers read and change.
    notification: i64,
    /// `other_org`'s event notification: the super admin deletes it (and then creates
    /// the next); A's managers are answered as for an unknown id.
    doomed_notification: i64,
    /// A task of A (A is subscribed to Define Operation) and its first history entry.
    task: i64,
    task_history: i64,
    /// The task's object, plane object and step rule.
    detector: Detector,
    /// A's device, one the super admin deletes, and a department of A (A is subscribed
    /// to Devices).
    devices: Devices,
    /// A video of the task, still uploading (A is subscribed to Record Training Set),
    /// with a tag of A and a comment.
    video: Media,
    /// A model type (the platform's default one).
    model_type: i64,
}

#[derive(Clone, Copy)]
struct Devices {
    device: i64,
    doomed: i64,
    dept: i64,
}

/// Every call of the server, as `me` makes it. Calls that end the session come last.
fn matrix(w: &World, me: &Me) -> Vec<Call> {
    use Need::*;
    use Permission::*;
    let r = me.role.as_str();
    let own = json!({"email": me.email, "password": me.password});
    vec![
        // Public.
        call("GET /health", None, Public),
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
        call(
            "POST /feature_control/send_email",
            Some(json!({
                "recipients": [format!("mail-{r}@walk.test")],
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
            "POST /generic/clone_task/",
            Some(json!({"task": w.task, "taskName": format!("Walk clone {r}")})),
            Perm(ManageTasks),
        ),
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
        call("GET /organization/task_record/tags", None, Perm(ViewVideos)),
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
        // Last: the session ends.
        call("PATCH /account/logout/", None, SignedIn),
    ]
}

/// The id in a 201 answer to the super admin's `body` on `path`.
async fn created(app: &TestApp, admin: &str, path: &str, body: Value) -> i64 {
    let (s, v) = app.post(path, body, Some(admin)).await;
    assert_eq!(s, StatusCode::CREATED, "{path}: {v}");
    v["id"].as_i64().unwrap()
}

async fn new_feature(app: &TestApp, admin: &str, name: &str) -> i64 {
    created(
        app,
        admin,
        "feature_control/feature/",
        json!({"name": name}),
    )
    .await
}

async fn new_subscription(app: &TestApp, admin: &str, feature: i64, org: i64) -> i64 {
    created(
        app,
        admin,
        "feature_control/subscribed_feature/",
        json!({"Feature": feature, "Organization": org}),
    )
    .await
}

/// Organisation `org`'s 'Task Update' notification, to `to`.
async fn new_notification(app: &TestApp, admin: &str, org: i64, to: &str) -> i64 {
    created(
        app,
        admin,
        "feature_control/event_notifications",
        json!({"event_type": "Task Update", "recipients": [to], "Organization": org}),
    )
    .await
}

/// Subscribes `org` to Define Operation and defines a task there as the super admin;
/// answers the task and its first history entry.
async fn new_task(app: &TestApp, admin: &str, org: i64, name: &str) -> (i64, i64) {
    app.subscribe(admin, org, "Define Operation").await;
    let (s, v) = app
        .call_with(
            Method::POST,
            "organization/task/",
            Some(json!({"taskName": name, "task_detail": "x\nStep:\nSub;\n"})),
            Some(admin),
            &[("Organization", &org.to_string())],
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let task = v["id"].as_i64().unwrap();
    let (_, h) = app
        .get(&format!("organization/task/{task}/history/"), admin)
        .await;
    (task, h[0]["id"].as_i64().unwrap())
}

/// Subscribes `org` to Record Training Set and uploads a video of `task` there as the
/// super admin (a one-second clip, ready); a tag, a comment and a time-stamp tag on it.
/// A line of `org` with one station, `task` on `device`.
async fn new_line(app: &TestApp, admin: &str, org: i64, task: i64, device: i64) -> i64 {
    let o = org.to_string();
    let (s, v) = app
        .call_with(
            Method::POST,
            "telemetry/trace/line/",
            Some(json!({"name": "Line", "stations": [{"task": task, "device": device}]})),
            Some(admin),
            &[("Organization", o.as_str())],
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

async fn new_video(app: &TestApp, admin: &str, org: i64, task: i64) -> Media {
    app.subscribe(admin, org, "Record Training Set").await;
    app.subscribe(admin, org, "Deploy Model").await;
    let o = org.to_string();
    let h = [("Organization", o.as_str())];
    let made = |path: String, body: Value| async move {
        let (s, v) = app
            .call_with(Method::POST, &path, Some(body), Some(admin), &h)
            .await;
        assert_eq!(s, StatusCode::CREATED, "{path}: {v}");
        v["id"].as_i64().unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let bytes = crate::videos::clip(dir.path(), 1);
    let video = made(
        format!("organization/task/videos/{task}"),
        json!({"file_name": "walk.mp4", "size_bytes": bytes.len()}),
    )
    .await;
    let r = app
        .client
        .put(format!(
            "{}/organization/task_record/{video}/content/",
            app.base
        ))
        .bearer_auth(admin)
        .header("Organization", &o)
        .header(
            "Content-Range",
            format!("bytes 0-{}/{}", bytes.len() - 1, bytes.len()),
        )
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "{}", r.text().await.unwrap());
    let tag = made(
        "organization/task_record/tags".into(),
        json!({"tag_name": "Walk"}),
    )
    .await;
    Media {
        model: fixture_model(app, org, task).await,
        video,
        tag,
        comment: made(
            "organization/task_record/comments".into(),
            json!({"entity_id": video, "text": "Walked"}),
        )
        .await,
        time_tag: made(
            "organization/tag_time_stamp_videos_view".into(),
            json!({"task_record": video, "tag": tag, "time_ms": 500}),
        )
        .await,
    }
}

/// The platform's first model type (the migration makes it).
async fn default_model_type(app: &TestApp, admin: &str) -> i64 {
    let (s, v) = app.get("organization/model_types", admin).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v[0]["id"].as_i64().unwrap()
}

/// Subscribes `org` to Devices and adds two devices and a department there as the super
/// admin.
async fn new_devices(app: &TestApp, admin: &str, org: i64) -> Devices {
    app.subscribe(admin, org, "Devices").await;
    let mut ids = vec![];
    for name in ["Walk bench", "Doomed bench"] {
        let (s, v) = app
            .call_with(
                Method::POST,
                "device/",
                Some(json!({"display_name": name})),
                Some(admin),
                &[("Organization", &org.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        ids.push(v["device"]["id"].as_i64().unwrap());
    }
    Devices {
        device: ids[0],
        doomed: ids[1],
        dept: created(
            app,
            admin,
            &format!("organization/{org}/department/"),
            json!({"name": "Walk dept"}),
        )
        .await,
    }
}

/// What a task's object detector works with, one of each.
#[derive(Clone, Copy)]
struct Detector {
    object: i64,
    plane: i64,
    rule: i64,
}

async fn new_detector(app: &TestApp, admin: &str, task: i64) -> Detector {
    Detector {
        object: created(
            app,
            admin,
            "organization/task/task_object/",
            json!({"task": task, "name": "Jig", "is_static": true}),
        )
        .await,
        plane: created(
            app,
            admin,
            "organization/task/plane_objects/",
            json!({"task": task, "name": "Bench", "points": [[0, 0], [1, 0], [1, 1]]}),
        )
        .await,
        rule: created(
            app,
            admin,
            &format!("organization/task/object_detection_rule/{task}/"),
            json!({"step": 0}),
        )
        .await,
    }
}

/// The super admin and one signed-in user per other role (all in A but the labeler),
/// and the records their calls name.
async fn matrix_setup(app: &TestApp) -> (World, Vec<Me>) {
    let admin_login = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let admin = token(&admin_login);
    let org_a = app.create_org(&admin, "Matrix A").await;
    let doomed = app.create_org(&admin, "Doomed").await;
    let other_org = app.create_org(&admin, "Other").await;
    let ws = approved(
        app,
        &admin,
        "ws@walk.test",
        Role::WorkstationUser,
        Some(org_a),
    )
    .await;
    let linked = approved(app, &admin, "linked@walk.test", Role::OrgUser, Some(org_a)).await;
    let (s, v) = app
        .post(
            "account/linked_organizations",
            json!({"user_id": linked, "organization": other_org}),
            Some(&admin),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let pending_email = "pending@walk.test".to_string();
    let pending_id = pending(app, &pending_email).await;
    let locked = "locked@walk.test";
    for _ in 0..5 {
        app.post(
            "account/login_v2",
            json!({"email": locked, "password": "wrong-pass-1"}),
            None,
        )
        .await;
    }
    let (_, lockouts) = app.get("account/lockout_list-delete/", &admin).await;
    assert!(lockouts.to_string().contains(locked), "{lockouts}");
    let feature = new_feature(app, &admin, "Walk feature").await;
    let (task, task_history) = new_task(app, &admin, org_a, "Walk task").await;
    let world = World {
        org_a,
        doomed,
        other_org,
        linked,
        ws,
        pending_email,
        pending_id,
        user_role: role_id(app, &admin, Role::User).await,
        locked,
        feature,
        doomed_feature: new_feature(app, &admin, "Doomed feature").await,
        subscription: new_subscription(app, &admin, feature, other_org).await,
        notification: new_notification(app, &admin, org_a, "lead@walk.test").await,
        doomed_notification: new_notification(app, &admin, other_org, "lead@walk.test").await,
        task,
        task_history,
        detector: new_detector(app, &admin, task).await,
        devices: new_devices(app, &admin, org_a).await,
        video: new_video(app, &admin, org_a, task).await,
        model_type: default_model_type(app, &admin).await,
    };
    let mut users = vec![];
    for role in Role::ALL {
        let r = role.as_str();
        let victim = approved(
            app,
            &admin,
            &format!("victim-{r}@walk.test"),
            Role::User,
            Some(org_a),
        )
        .await;
        let m = if role == Role::Admin {
            me(app, role, admin_login.clone(), ADMIN_PASSWORD, victim).await
        } else {
            let org = role.needs_organization().then_some(org_a);
            let login = app.user_in(&admin, &format!("{r}@walk.test"), r, org).await;
            me(app, role, login, PASSWORD, victim).await
        };
        users.push(m);
    }
    // The super admin goes last: its calls delete and unlink what the others are
    // refused.
    users.rotate_left(1);
    assert_eq!(users.last().unwrap().role, Role::Admin);
    (world, users)
}

both!(
    every_role_gets_403_outside_its_permissions_and_never_inside,
    |app: TestApp| async move {
        let doc = openapi(&app).await;
        let (world, users) = matrix_setup(&app).await;
        // The table lists every call the server has, and only those.
        let table = matrix(&world, &users[0]);
        let covered: BTreeSet<&str> = table.iter().map(|c| c.op).collect();
        assert_covers(&doc, &covered, "role matrix", |_| true);
        // Every role holds some permission and lacks another, or the walk proves little.
        let perms: BTreeSet<_> = table
            .iter()
            .filter_map(|c| match c.need {
                Need::Perm(p) => Some(format!("{p:?}")),
                _ => None,
            })
            .collect();
        assert!(perms.len() >= 10, "{perms:?}");

        let mut wrong = vec![];
        for me in &users {
            for c in matrix(&world, me) {
                let (s, v) = c.send(&app, &me.token, &[]).await;
                let who = format!("{} {} ({}): {s} {v}", me.role, c.op, c.url);
                if c.need.allows(me.role) {
                    let sso = c.url.contains("azure")
                        || c.url.contains("google")
                        || c.url.contains("aws");
                    if s == StatusCode::FORBIDDEN
                        || s == StatusCode::UNAUTHORIZED
                        || (s.is_server_error() && !(sso && s == StatusCode::NOT_IMPLEMENTED))
                    {
                        wrong.push(format!("allowed but refused: {who}"));
                    }
                } else {
                    let ok = s == StatusCode::FORBIDDEN || (c.hides && s == StatusCode::NOT_FOUND);
                    if !ok || !is_error_shape(&v) {
                        wrong.push(format!("not refused: {who}"));
                    }
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "{} wrong answers:\n{}",
            wrong.len(),
            wrong.join("\n")
        );

        // The super admin's calls did what they say (so "not 403" was a real success).
        let admin = app.admin_token().await;
        let (s, _) = app
            .get(
                &format!("organization/{}/department/", world.doomed),
                &admin,
            )
            .await;
        assert_eq!(
            s,
            StatusCode::NOT_FOUND,
            "the doomed organisation is deleted"
        );
        let (_, links) = app
            .get(
                &format!("account/linked_organizations/?user_id={}", world.linked),
                &admin,
            )
            .await;
        assert!(
            links
                .as_array()
                .unwrap()
                .iter()
                .all(|l| l["organization"] != world.other_org),
            "{links}"
        );
        let (_, lockouts) = app.get("account/lockout_list-delete/", &admin).await;
        assert!(!lockouts.to_string().contains(world.locked), "{lockouts}");
        // Features: only the super admin's was created; it deleted one and subscribed
        // A, and ended other_org's subscription.
        let (_, features) = app.get("feature_control/feature/", &admin).await;
        let walk_made: Vec<&str> = features
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["name"].as_str())
            .filter(|n| n.starts_with("Walk feature "))
            .collect();
        assert_eq!(walk_made, ["Walk feature admin"], "{features}");
        assert!(
            !ids(&features, "id").contains(&world.doomed_feature),
            "{features}"
        );
        let (_, subs) = app.get("feature_control/subscribed_feature/", &admin).await;
        let pairs: Vec<(i64, i64)> = subs
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| {
                !matches!(
                    s["feature_name"].as_str(),
                    Some("Define Operation" | "Devices" | "Record Training Set" | "Deploy Model")
                )
            })
            .map(|s| {
                (
                    s["Feature"].as_i64().unwrap(),
                    s["Organization"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(pairs, [(world.feature, world.org_a)], "{subs}");
        // Devices: added by exactly the roles that manage them; the doomed one is gone; every operating role renamed
        // A's device, the last one's name stays.
        let (_, devs) = app
            .call_with(
                Method::GET,
                &format!("device/device_org/{}/", world.org_a),
                None,
                Some(&admin),
                &[],
            )
            .await;
        let mut made: Vec<String> = devs
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| {
                d["display_name"]
                    .as_str()?
                    .strip_prefix("Walk device ")
                    .map(String::from)
            })
            .collect();
        made.sort();
        let mut managers: Vec<String> = Role::ALL
            .iter()
            .filter(|r| r.can(Permission::ManageDevices))
            .map(|r| r.as_str().to_string())
            .collect();
        managers.sort();
        assert_eq!(made, managers, "{devs}");
        assert!(!ids(&devs, "id").contains(&world.devices.doomed), "{devs}");
        let (_, d) = app
            .get(
                &format!("device/{}/device_details/", world.devices.device),
                &admin,
            )
            .await;
        assert!(
            d["display_name"]
                .as_str()
                .unwrap()
                .starts_with("Walked by "),
            "{d}"
        );
        assert_eq!(d["department"], world.devices.dept, "{d}");
        assert_eq!(
            (&d["is_archived"], &d["tasks"][0]["running"]),
            (&json!(false), &json!(false)),
            "{d}"
        );
        // Tasks: defined by exactly the roles that manage them (the super admin acts in
        // no organisation here); each of them changed A's task.
        let (_, tasks) = app
            .call_with(
                Method::GET,
                "organization/task/",
                None,
                Some(&admin),
                &[("Organization", &world.org_a.to_string())],
            )
            .await;
        let names: BTreeSet<&str> = tasks
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["taskName"].as_str())
            .collect();
        for me in users.iter().filter(|m| m.role != Role::Admin) {
            let made = names.contains(format!("Walk task {}", me.role.as_str()).as_str());
            assert_eq!(
                made,
                me.role.can(Permission::ManageTasks),
                "task of {}",
                me.role
            );
        }
        let (_, hist) = app
            .get(
                &format!("organization/task/{}/history/", world.task),
                &admin,
            )
            .await;
        let changed = hist
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["action"] == "updated")
            .count();
        let managers = users
            .iter()
            .filter(|m| m.role.can(Permission::ManageTasks))
            .count();
        assert_eq!(changed, managers, "{hist}");
        // Notifications: A's changed by each manager in turn, the super admin last;
        // other_org's replaced by the super admin's.
        let (_, notes) = app.get("feature_control/event_notifications", &admin).await;
        let by_org: BTreeMap<i64, (i64, Value)> = notes
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                let org = n["Organization"].as_i64().unwrap();
                (org, (n["id"].as_i64().unwrap(), n["recipients"].clone()))
            })
            .collect();
        assert_eq!(by_org.len(), 2, "{notes}");
        assert_eq!(
            by_org[&world.org_a],
            (world.notification, json!(["admin@walk.test"]))
        );
        let (id, to) = &by_org[&world.other_org];
        assert_ne!(*id, world.doomed_notification);
        assert_eq!(*to, json!(["admin@walk.test"]));
        // E-mail: sent by exactly the roles that may.
        for me in &users {
            let to = format!("mail-{}@walk.test", me.role.as_str());
            assert_eq!(
                app.last_mail(&to).await.is_some(),
                me.role.can(Permission::SendEmail),
                "mail of {}",
                me.role
            );
        }
        // Victims: deleted by exactly the roles that manage org users.
        for me in &users {
            let gone = gemba_cloud::db::users::by_id(&app.state.db, me.victim)
                .await
                .unwrap()
                .is_none();
            assert_eq!(
                gone,
                me.role.can(Permission::ManageOrgUsers),
                "victim of {}",
                me.role
            );
        }
    }
);

// ----- 2. tenancy ----------------------------------------------------------------------

/// Organisation B as the tenancy walk sees it.
struct TenantB {
    org: i64,
    /// Its sub-domain name.
    name: String,
    admin: i64,
    ws: i64,
    /// A workstation user of B also linked to A.
    shared: i64,
    /// A signed-in user of B.
    user: Me,
    /// A feature B is subscribed to, the subscription, and B's event notification.
    feature: i64,
    subscription: i64,
    notification: i64,
    /// B's task and its first history entry, and its detector's parts.
    task: i64,
    task_history: i64,
    detector: Detector,
    devices: Devices,
    /// A video of B's task, a tag of B and a comment.
    video: Media,
    /// A line of B's task on B's device.
    line: i64,
}

#[derive(Clone, Copy)]
struct Media {
    video: i64,
    tag: i64,
    comment: i64,
    time_tag: i64,
    /// A model version of the task (the org is subscribed to Deploy Model).
    model: i64,
}

/// A model version of `task`, registered as a finished training run registers one (its
/// bundle is not stored: the walks never download it).
async fn fixture_model(app: &TestApp, org: i64, task: i64) -> i64 {
    use gemba_cloud::db::training;
    let db = &app.state.db;
    let t = gemba_cloud::db::tasks::get(db, 0, Some(org), task)
        .await
        .unwrap()
        .unwrap();
    let run = training::start(
        db,
        training::NewRun {
            org,
            task,
            task_version: t.version,
            epochs: 1,
            train_videos: &[],
            holdout_videos: &[],
            by: 1,
        },
    )
    .await
    .unwrap()
    .unwrap();
    assert!(training::begin(db, run.id).await.unwrap());
    let metrics = gemba_shared::api::v1::training::Metrics::default();
    let m = training::succeed(
        db,
        &run,
        training::NewModel {
            model_type_id: None,
            version: &format!("walk-{task}"),
            object_key: "models/walk/model.onnx",
            sha256: "00",
            size_bytes: 1,
            metrics: Some(&metrics),
        },
    )
    .await
    .unwrap()
    .unwrap();
    m.id
}

/// A call with one of B's ids. It must be refused (403 or 404); when `unknown` names
/// a body field, a 400 on that field (B's id treated as unknown) is a refusal too.
struct Cross {
    call: Call,
    unknown: Option<&'static str>,
    /// The id names a record of the platform's, which every organisation reads.
    platform: bool,
}

fn cross(op: &'static str, url: impl Into<String>, body: Option<Value>) -> Cross {
    Cross {
        call: call(op, body, Need::SignedIn).at(url),
        unknown: None,
        platform: false,
    }
}

impl Cross {
    fn or_unknown(mut self, field: &'static str) -> Cross {
        self.unknown = Some(field);
        self
    }

    fn platform(mut self) -> Cross {
        self.platform = true;
        self
    }
}

/// Every call that takes an id, with B's ids, as `me` (a user of A) makes it.
fn cross_tenant(b: &TenantB, a: i64, wa: &World, org_admin_role: i64, me: &Me) -> Vec<Cross> {
    let (a_task, a_rule, a_device, a_video) =
        (wa.task, wa.detector.rule, wa.devices.device, wa.video.video);
    let bo = b.org;
    let bu = &b.user;
    let mut v = vec![
        cross(
            "PATCH /organization/{id}/",
            format!("organization/{bo}/"),
            Some(json!({"org_name_to_display": "Taken over", "use_proxy_server": true})),
        ),
        cross("DELETE /organization/{id}/", format!("organization/{bo}/"), None),
        cross("GET /organization/{id}/department/", format!("organization/{bo}/department/"), None),
        cross(
            "POST /organization/{id}/department/",
            format!("organization/{bo}/department/"),
            Some(json!({"name": "Intruders"})),
        ),
        cross(
            "PATCH /organization/organization-switch",
            "organization/organization-switch",
            Some(json!({"organization": bo})),
        )
        .or_unknown("organization"),
        cross(
            "PATCH /account/switch_user_organization",
            "account/switch_user_organization",
            Some(json!({"organization": bo, "organizationDisplayName": "Tenant B", "local_storage": {"a": 1}})),
        )
        .or_unknown("organization"),
        cross(
            "GET /account/linked_users_list/",
            format!("account/linked_users_list/?organization={bo}"),
            None,
        ),
        cross(
            "POST /account/linked_organizations",
            "account/linked_organizations",
            Some(json!({"user_id": me.id, "organization": bo})),
        ),
        cross(
            "POST /account/linked_organizations",
            "account/linked_organizations",
            Some(json!({"user_id": bu.id, "organization": a})),
        ),
        cross(
            "PATCH /account/session/update/{id}/",
            format!("account/session/update/{}/", bu.activity),
            None,
        ),
        cross(
            "POST /account/session/create/",
            "account/session/create/",
            Some(json!({"user": bu.id, "browser": "x", "browser_version": "1"})),
        )
        .or_unknown("user"),
        cross(
            "GET /account/retrieve-session/",
            format!("account/retrieve-session/?email={}&sessionKey={}", bu.email, bu.session_key),
            None,
        ),
        cross(
            "PUT /account/approve_user",
            "account/approve_user",
            Some(json!({"email": bu.email, "roleId": org_admin_role})),
        ),
        cross(
            "PUT /account/assign_user_org",
            "account/assign_user_org",
            Some(json!({"email": bu.email, "organization": a})),
        ),
        cross(
            "PUT /account/assign_user_org",
            "account/assign_user_org",
            Some(json!({"email": me.email, "organization": bo})),
        ),
        cross("GET /account/users_list/v2", "account/users_list/v2?is_admin=true", None),
        cross("GET /account/users_list", "account/users_list?is_admin=true", None),
        cross("GET /admin/outbox/", format!("admin/outbox/?recipient={}", bu.email), None),
        cross("DELETE /feature_control/feature/", format!("feature_control/feature/?id={}", b.feature), None),
        cross(
            "GET /feature_control/subscribed_feature/",
            format!("feature_control/subscribed_feature/?organization={bo}"),
            None,
        ),
        cross(
            "POST /feature_control/subscribed_feature/",
            "feature_control/subscribed_feature/",
            Some(json!({"Feature": b.feature, "Organization": bo, "is_suppressed": true})),
        ),
        cross(
            "DELETE /feature_control/subscribed_feature/",
            format!("feature_control/subscribed_feature/?id={}", b.subscription),
            None,
        ),
        cross(
            "GET /feature_control/event_notifications",
            format!("feature_control/event_notifications?organization={bo}"),
            None,
        ),
        cross(
            "POST /feature_control/event_notifications",
            "feature_control/event_notifications",
            Some(json!({"event_type": "Task Update", "recipients": ["intruder@a.test"], "Organization": bo})),
        )
        .or_unknown("Organization"),
        cross(
            "GET /feature_control/event_notification/{id}",
            format!("feature_control/event_notification/{}", b.notification),
            None,
        ),
        cross(
            "DELETE /feature_control/event_notification/{id}",
            format!("feature_control/event_notification/{}", b.notification),
            None,
        ),
        cross(
            "GET /feature_control/get_event_notification/{org}/{event}",
            format!("feature_control/get_event_notification/{bo}/Task%20Update"),
            None,
        ),
    ];
    let (bt, bh) = (b.task, b.task_history);
    let (bd, bdept) = (b.devices.device, b.devices.dept);
    v.extend([
        cross(
            "GET /device/device_org/{id}/",
            format!("device/device_org/{bo}/"),
            None,
        ),
        cross(
            "GET /device/{id}/get_department_less_devices/",
            format!("device/{bo}/get_department_less_devices/"),
            None,
        ),
        cross(
            "PATCH /device/{id}/assign_device_to_department/{dept}/",
            format!("device/{bd}/assign_device_to_department/{bdept}/"),
            None,
        ),
        cross(
            "PATCH /device/{id}/assign_device_to_department/{dept}/",
            format!("device/{a_device}/assign_device_to_department/{bdept}/"),
            None,
        ),
        cross(
            "GET /device/{id}/device_details/",
            format!("device/{bd}/device_details/"),
            None,
        ),
        cross(
            "GET /organization/task/videos/{task_id}",
            format!("organization/task/videos/{bt}"),
            None,
        ),
        cross(
            "POST /organization/task/videos/{task_id}",
            format!("organization/task/videos/{bt}"),
            Some(json!({"file_name": "intruder.mp4", "size_bytes": 10})),
        ),
        cross(
            "POST /organization/task/videos/{task_id}/record/",
            format!("organization/task/videos/{bt}/record/"),
            Some(json!({"device": b.devices.device, "camera": "cam0", "seconds": 10})),
        ),
        cross(
            "GET /organization/task_record/{id}/",
            format!("organization/task_record/{}/", b.video.video),
            None,
        ),
        cross(
            "PUT /organization/task_record/{id}/content/",
            format!("organization/task_record/{}/content/", b.video.video),
            Some(json!({})),
        ),
        cross(
            "GET /organization/task_record/{id}/labels/",
            format!("organization/task_record/{}/labels/", b.video.video),
            None,
        ),
        cross(
            "PUT /organization/task_record/{id}/labels/",
            format!("organization/task_record/{}/labels/", b.video.video),
            Some(json!({"segments": []})),
        ),
        cross(
            "PATCH /organization/task_record/bulk_delete/",
            "organization/task_record/bulk_delete/",
            Some(json!({"ids": [b.video.video]})),
        )
        .or_unknown("ids"),
        cross(
            "PATCH /organization/task_record/{id}/",
            format!("organization/task_record/{}/", b.video.video),
            Some(json!({"file_name": "Taken over"})),
        ),
        cross(
            "PATCH /organization/task_record/{id}/",
            format!("organization/task_record/{}/", a_video),
            Some(json!({"tags": [b.video.tag]})),
        )
        .or_unknown("tags"),
        cross(
            "DELETE /organization/task_record/tags/{id}",
            format!("organization/task_record/tags/{}", b.video.tag),
            None,
        ),
        cross(
            "GET /organization/task_record/comments",
            format!(
                "organization/task_record/comments?entity_id={}",
                b.video.video
            ),
            None,
        ),
        cross(
            "POST /organization/task_record/comments",
            "organization/task_record/comments",
            Some(json!({"entity_id": b.video.video, "text": "Intruding"})),
        ),
        cross(
            "DELETE /organization/task_record/comments/{id}",
            format!("organization/task_record/comments/{}", b.video.comment),
            None,
        ),
        cross(
            "GET /organization/tag_time_stamp_videos_view",
            format!(
                "organization/tag_time_stamp_videos_view?task_record={}",
                b.video.video
            ),
            None,
        ),
        cross(
            "POST /organization/tag_time_stamp_videos_view",
            "organization/tag_time_stamp_videos_view",
            Some(json!({"task_record": b.video.video, "tag": b.video.tag, "time_ms": 100})),
        ),
        cross(
            "POST /organization/tag_time_stamp_videos_view",
            "organization/tag_time_stamp_videos_view",
            Some(json!({"task_record": a_video, "tag": b.video.tag, "time_ms": 100})),
        )
        .or_unknown("tag"),
        cross(
            "DELETE /organization/tag_time_stamp_video/{id}",
            format!("organization/tag_time_stamp_video/{}", b.video.time_tag),
            None,
        ),
        cross(
            "PATCH /device/{id}/",
            format!("device/{bd}/"),
            Some(json!({"display_name": "Taken over"})),
        ),
        cross("DELETE /device/{id}/", format!("device/{bd}/"), None),
        cross(
            "PATCH /device/update_device/{id}/",
            format!("device/update_device/{bd}/"),
            Some(json!({"display_name": "Taken over"})),
        ),
        cross(
            "PATCH /device/archive_device/{id}/",
            format!("device/archive_device/{bd}/"),
            Some(json!({})),
        ),
        cross(
            "GET /device/{org}/device_settings/{id}/",
            format!("device/{bo}/device_settings/{bd}/"),
            None,
        ),
        cross(
            "PATCH /device/{org}/device_settings_update/{id}/",
            format!("device/{bo}/device_settings_update/{bd}/"),
            Some(json!({"taken": true})),
        ),
        cross(
            "PATCH /device/{org}/update_organization_devices_settings/",
            format!("device/{bo}/update_organization_devices_settings/"),
            Some(json!({"taken": true})),
        ),
        cross(
            "GET /device/get_device_tasks/{id}",
            format!("device/get_device_tasks/{bd}"),
            None,
        ),
        cross(
            "POST /device/device_tasks_upsert/",
            "device/device_tasks_upsert/",
            Some(json!({"device": bd, "camera": "cam0", "task": bt})),
        ),
        cross(
            "POST /device/device_tasks_upsert/",
            "device/device_tasks_upsert/",
            Some(json!({"device": a_device, "camera": "cam0", "task": bt})),
        )
        .or_unknown("task"),
        cross(
            "POST /device/{id}/start_task/",
            format!("device/{bd}/start_task/"),
            Some(json!({"camera": "cam0", "task": bt})),
        ),
        cross(
            "POST /device/{id}/start_task/",
            format!("device/{a_device}/start_task/"),
            Some(json!({"camera": "cam0", "task": bt})),
        )
        .or_unknown("task"),
        cross(
            "POST /device/{id}/stop_task/",
            format!("device/{bd}/stop_task/"),
            Some(json!({"camera": "cam0"})),
        ),
        cross(
            "GET /device/{id}/commands/",
            format!("device/{bd}/commands/"),
            None,
        ),
        cross(
            "GET /device/get_device_tasks_association/",
            format!("device/get_device_tasks_association/?task={bt}&device={bd}"),
            None,
        ),
        cross(
            "GET /device/get_device_tasks_association/",
            format!("device/get_device_tasks_association/?task={bt}&device={a_device}"),
            None,
        ),
        cross(
            "POST /device/{id}/enrolment_code/",
            format!("device/{bd}/enrolment_code/"),
            None,
        ),
        cross(
            "POST /device/{id}/revoke/",
            format!("device/{bd}/revoke/"),
            None,
        ),
        cross(
            "POST /device/",
            "device/",
            Some(json!({"display_name": "Spy", "department": bdept})),
        )
        .or_unknown("department"),
    ]);
    v.extend([
        cross(
            "GET /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            None,
        ),
        cross(
            "PATCH /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            Some(json!({"taskName": "Taken over"})),
        ),
        cross(
            "PATCH /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            Some(json!({"starred": true})),
        ),
        cross(
            "PATCH /organization/task/{id}/",
            format!("organization/task/{bt}/"),
            Some(json!({"is_deleted": true})),
        ),
        cross(
            "GET /organization/task/{id}/history/",
            format!("organization/task/{bt}/history/"),
            None,
        ),
        cross(
            "GET /organization/task_history/{id}/",
            format!("organization/task_history/{bt}/?history_id={bh}"),
            None,
        ),
        cross(
            "PATCH /organization/task/{id}/revert/",
            format!("organization/task/{bt}/revert/"),
            Some(json!({"history_id": bh})),
        ),
        cross(
            "POST /generic/clone_task/",
            "generic/clone_task/",
            Some(json!({"task": bt, "taskName": "Copied out"})),
        ),
        cross(
            "PUT /organization/train/stop/",
            "organization/train/stop/",
            Some(json!({"task": bt})),
        ),
        cross(
            "GET /organization/trained_task/{id}",
            format!("organization/trained_task/{bt}"),
            None,
        ),
        cross(
            "GET /organization/task/{id}/labelers/",
            format!("organization/task/{bt}/labelers/"),
            None,
        ),
        cross(
            "POST /organization/task/{id}/labelers/",
            format!("organization/task/{bt}/labelers/"),
            Some(json!({"email": "nobody@walk.test"})),
        ),
        cross(
            "DELETE /organization/task/{id}/labelers/{labeler}/",
            format!("organization/task/{bt}/labelers/1/"),
            None,
        ),
        cross(
            "GET /labeler/videos/{taskId}",
            format!("labeler/videos/{bt}"),
            None,
        ),
        cross(
            "GET /labeler/task_record/{id}/labels/",
            format!("labeler/task_record/{}/labels/", b.video.video),
            None,
        ),
        cross(
            "PUT /labeler/task_record/{id}/labels/",
            format!("labeler/task_record/{}/labels/", b.video.video),
            Some(json!({"segments": []})),
        ),
        cross(
            "PATCH /labeler/task/mark_propagations_as_reviewed",
            "labeler/task/mark_propagations_as_reviewed",
            Some(json!({"task": bt})),
        )
        .or_unknown("task"),
        cross(
            "PATCH /organization/task/mark_propagations_as_reviewed",
            "organization/task/mark_propagations_as_reviewed",
            Some(json!({"task": bt, "videos": [b.video.video]})),
        )
        .or_unknown("task"),
        cross(
            "PATCH /organization/task/delete_annotations",
            "organization/task/delete_annotations",
            Some(json!({"task": bt})),
        )
        .or_unknown("task"),
        cross(
            "GET /organization/task/annotations_check/{id}",
            format!("organization/task/annotations_check/{bt}"),
            None,
        ),
        cross(
            "GET /telemetry/fetch_cycles/v2",
            format!("telemetry/fetch_cycles/v2?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "POST /telemetry/fetch_cycles/",
            "telemetry/fetch_cycles/",
            Some(json!({"task": bt})),
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/unique_metadata_keys/",
            format!("telemetry/unique_metadata_keys/?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/top_five_percentile",
            format!("telemetry/top_five_percentile?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/trace/v2",
            format!("telemetry/trace/v2?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/trace/",
            format!("telemetry/trace/?task={bt}"),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/trace/line/{id}",
            format!("telemetry/trace/line/{}", b.line),
            None,
        ),
        cross(
            "PATCH /telemetry/trace/line/{id}",
            format!("telemetry/trace/line/{}", b.line),
            Some(json!({"name": "Taken over"})),
        ),
        cross(
            "DELETE /telemetry/trace/line/{id}",
            format!("telemetry/trace/line/{}", b.line),
            None,
        ),
        cross(
            "GET /telemetry/line_stats",
            format!(
                "telemetry/line_stats?line={}&datetime_start=2026-11-01&\
                 datetime_end=2026-11-30",
                b.line
            ),
            None,
        ),
        cross(
            "GET /telemetry/trace/line_traceability/",
            format!(
                "telemetry/trace/line_traceability/?line={}&cycle_id=no-such-cycle",
                b.line
            ),
            None,
        ),
        cross(
            "POST /telemetry/trace/line/",
            "telemetry/trace/line/",
            Some(json!({"name": "B's stations", "stations": [{"task": bt, "device": b.devices.device}]})),
        )
        .or_unknown("stations"),
        cross(
            "GET /telemetry/issues",
            format!("telemetry/issues?task={bt}&datetime_start=2026-11-01&datetime_end=2026-11-30"),
            None,
        )
        .or_unknown("task"),
        cross(
            "POST /telemetry/issues/review",
            "telemetry/issues/review",
            Some(json!({"task": bt, "key": "too_long",
                "datetime_start": "2026-11-01", "datetime_end": "2026-11-30"})),
        )
        .or_unknown("task"),
        cross(
            "GET /telemetry/archive_cycle/",
            format!("telemetry/archive_cycle/?organization={bo}"),
            None,
        )
        .or_unknown("organization"),
        cross(
            "GET /telemetry/cycle_stats",
            format!(
                "telemetry/cycle_stats?task={bt}&datetime_start=2026-11-01&\
                 datetime_end=2026-11-30"
            ),
            None,
        )
        .or_unknown("task"),
        cross(
            "GET /organization/model_version",
            format!("organization/model_version?task={bt}"),
            None,
        ),
        cross(
            "POST /organization/model_version",
            "organization/model_version",
            Some(json!({"task": bt, "model_file": UNKNOWN_ID})),
        )
        .or_unknown("task"),
        // Model types and files are the platform's, not B's: reading one is no leak;
        // changing them is the super admin's alone.
        cross(
            "GET /organization/model_types/{id}",
            format!("organization/model_types/{}", wa.model_type),
            None,
        )
        .platform(),
        cross(
            "POST /organization/model_types",
            "organization/model_types",
            Some(
                json!({"name": "Tenant type", "input_width": 32, "input_height": 24,
                "hidden": 8}),
            ),
        ),
        cross(
            "PATCH /organization/model_type/{id}",
            format!("organization/model_type/{}", wa.model_type),
            Some(json!({"name": "Taken over"})),
        ),
        cross(
            "POST /organization/model_files",
            format!("organization/model_files?model_type={}", wa.model_type),
            Some(json!({})),
        ),
        cross(
            "PATCH /organization/model_files",
            format!("organization/model_files?ids={UNKNOWN_ID}"),
            Some(json!({"model_type": wa.model_type})),
        ),
        cross(
            "DELETE /organization/model_files",
            format!("organization/model_files?ids={UNKNOWN_ID}"),
            None,
        ),
        cross(
            "GET /organization/model_version/{id}",
            format!("organization/model_version/{}", b.video.model),
            None,
        ),
        cross(
            "PATCH /organization/model_version/{id}",
            format!("organization/model_version/{}", b.video.model),
            Some(json!({"is_deleted": true})),
        ),
        cross(
            "POST /organization/model_version/{id}/deploy/",
            format!("organization/model_version/{}/deploy/", b.video.model),
            Some(json!({"devices": [b.devices.device]})),
        ),
        cross(
            "GET /organization/deployments/",
            format!("organization/deployments/?model_version={}", b.video.model),
            None,
        ),
        cross(
            "PATCH /organization/trained_task/{id}",
            format!("organization/trained_task/{bt}"),
            Some(json!({"train_status": "training"})),
        ),
        cross(
            "PATCH /organization/task/last_update/{id}",
            format!("organization/task/last_update/{bt}"),
            Some(json!({})),
        ),
        cross(
            "GET /organization/tasks/admin",
            format!("organization/tasks/admin?organization={bo}"),
            None,
        ),
    ]);
    let d = b.detector;
    let square = json!([[0, 0], [1, 0], [1, 1]]);
    v.extend([
        cross(
            "GET /organization/task/list_task_objects/{id}/",
            format!("organization/task/list_task_objects/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/task/task_object/",
            "organization/task/task_object/",
            Some(json!({"task": bt, "name": "Planted"})),
        ),
        cross(
            "PATCH /organization/task/task_object/{id}/",
            format!("organization/task/task_object/{}/", d.object),
            Some(json!({"name": "Taken"})),
        ),
        cross(
            "DELETE /organization/task/task_object/{id}/",
            format!("organization/task/task_object/{}/", d.object),
            None,
        ),
        cross(
            "GET /organization/task/list_plane_objects/{id}/",
            format!("organization/task/list_plane_objects/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/task/plane_objects/",
            "organization/task/plane_objects/",
            Some(json!({"task": bt, "name": "Planted", "points": square})),
        ),
        cross(
            "PUT /organization/task/plane_objects/{id}/",
            format!("organization/task/plane_objects/{}/", d.plane),
            Some(json!({"name": "Taken", "points": square})),
        ),
        cross(
            "DELETE /organization/task/plane_objects/{id}/",
            format!("organization/task/plane_objects/{}/", d.plane),
            None,
        ),
        cross(
            "GET /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{bt}/"),
            None,
        ),
        cross(
            "POST /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{bt}/"),
            Some(json!({"step": 0})),
        ),
        cross(
            "PATCH /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{}/", d.rule),
            Some(json!({"verify": true})),
        ),
        cross(
            "DELETE /organization/task/object_detection_rule/delete/",
            format!(
                "organization/task/object_detection_rule/delete/?id={}",
                d.rule
            ),
            None,
        ),
        cross(
            "PATCH /organization/task/object_detection_rule/bulk_delete",
            "organization/task/object_detection_rule/bulk_delete",
            Some(json!({"ids": [d.rule]})),
        ),
        cross(
            "GET /generic/list_region_json/{id}/",
            format!("generic/list_region_json/{bt}/"),
            None,
        ),
        cross(
            "PATCH /generic/list_region_json/{id}/",
            format!("generic/list_region_json/{bt}/"),
            Some(json!({"region_json": {"taken": true}})),
        ),
    ]);
    // A's own rule with B's object: the object is unknown to A's task.
    v.push(
        cross(
            "PATCH /organization/task/object_detection_rule/{id}/",
            format!("organization/task/object_detection_rule/{}/", a_rule),
            Some(json!({"static_object": [d.object]})),
        )
        .or_unknown("static_object"),
    );
    v.push(
        cross(
            "PATCH /organization/task/{id}/revert/",
            format!("organization/task/{a_task}/revert/"),
            Some(json!({"history_id": bh})),
        )
        .or_unknown("history_id"),
    );
    for body in [
        json!({"recipients": ["intruder@a.test"]}),
        json!({"Organization": a}),
        json!({"event_type": "Task Update", "Organization": bo}),
    ] {
        v.push(cross(
            "PATCH /feature_control/event_notification/{id}",
            format!("feature_control/event_notification/{}", b.notification),
            Some(body),
        ));
    }
    for (uid, org) in [(bu.id, bo), (bu.id, a), (me.id, bo)] {
        v.push(cross(
            "PATCH /organization/organization-switch/{id}/",
            format!("organization/organization-switch/{uid}/"),
            Some(json!({"organization": org})),
        ));
    }
    for uid in [bu.id, b.shared] {
        v.push(cross(
            "GET /account/linked_organizations/",
            format!("account/linked_organizations/?user_id={uid}"),
            None,
        ));
        v.push(cross(
            "DELETE /account/delete_linked_organizations",
            format!("account/delete_linked_organizations?user_id={uid}&organization={bo}"),
            None,
        ));
        v.push(cross(
            "PATCH /account/admin-verification-email/{id}/",
            format!("account/admin-verification-email/{uid}/"),
            Some(json!({"is_email_verified": false})),
        ));
        v.push(cross(
            "PATCH /account/update-delete/{id}/",
            format!("account/update-delete/{uid}/"),
            Some(json!({"terms_and_conditions_accepted": true})),
        ));
    }
    for uid in [b.admin, b.ws, bu.id, b.shared] {
        v.push(cross(
            "DELETE /account/update-delete/{id}/",
            format!("account/update-delete/{uid}/"),
            None,
        ));
    }
    for uid in [b.ws, b.shared] {
        v.push(cross(
            "PATCH /account/reset_workstation_user_password/",
            "account/reset_workstation_user_password/",
            Some(json!({"user": uid, "password": "taken-over-1"})),
        ));
    }
    v
}

/// Every number under `key` anywhere in `v`.
fn ids(v: &Value, key: &str) -> BTreeSet<i64> {
    let mut out = BTreeSet::new();
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                if k == key
                    && let Some(n) = x.as_i64()
                {
                    out.insert(n);
                }
                out.extend(ids(x, key));
            }
        }
        Value::Array(a) => a.iter().for_each(|x| out.extend(ids(x, key))),
        _ => {}
    }
    out
}

/// B as the super admin reads it: the organisation, its departments, its users and
/// their links, the features, B's subscriptions and event notifications; and from the
/// database the users' rows (passwords, terms, current organisation…), activity
/// sessions and open sign-in sessions.
async fn state_of(app: &TestApp, admin: &str, b: i64) -> BTreeMap<String, String> {
    let mut st = BTreeMap::new();
    for (key, url) in [
        ("features", "feature_control/feature/".to_string()),
        (
            "subscriptions",
            format!("feature_control/subscribed_feature/?organization={b}"),
        ),
        (
            "notifications",
            format!("feature_control/event_notifications?organization={b}"),
        ),
    ] {
        let (s, v) = app.get(&url, admin).await;
        assert_eq!(s, StatusCode::OK, "{url}: {v}");
        assert!(!v.as_array().unwrap().is_empty(), "B has {key}: {v}");
        st.insert(key.into(), v.to_string());
    }
    let (s, tasks) = app
        .get(&format!("organization/tasks/admin?organization={b}"), admin)
        .await;
    assert_eq!(s, StatusCode::OK, "{tasks}");
    assert!(tasks["count"].as_i64() > Some(0), "B has tasks: {tasks}");
    for id in ids(&tasks["results"], "id") {
        let (_, h) = app
            .get(&format!("organization/task/{id}/history/"), admin)
            .await;
        st.insert(format!("history of task {id}"), h.to_string());
    }
    st.insert("tasks".into(), tasks.to_string());
    for id in ids(&tasks["results"], "id") {
        let (s, v) = app
            .call_with(
                Method::GET,
                &format!("organization/task/videos/{id}"),
                None,
                Some(admin),
                &[("Organization", &b.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // What a change would move; not the signed URLs, which are new on every call.
        let kept: Vec<String> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                format!(
                    "{} {} {} {}",
                    x["id"], x["file_name"], x["status"], x["received_bytes"]
                )
            })
            .collect();
        st.insert(format!("videos of task {id}"), kept.join("; "));
        for video in ids(&v["results"], "id") {
            let (s, c) = app
                .call_with(
                    Method::GET,
                    &format!("organization/task_record/comments?entity_id={video}"),
                    None,
                    Some(admin),
                    &[("Organization", &b.to_string())],
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{c}");
            st.insert(format!("comments of video {video}"), c.to_string());
            let (s, t) = app
                .call_with(
                    Method::GET,
                    &format!("organization/tag_time_stamp_videos_view?task_record={video}"),
                    None,
                    Some(admin),
                    &[("Organization", &b.to_string())],
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{t}");
            st.insert(format!("time tags of video {video}"), t.to_string());
        }
    }
    let (s, tags) = app
        .call_with(
            Method::GET,
            "organization/task_record/tags",
            None,
            Some(admin),
            &[("Organization", &b.to_string())],
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{tags}");
    st.insert("video tags".into(), tags.to_string());
    for archived in [false, true] {
        let (s, d) = app
            .get(
                &format!("device/device_org/{b}/?archived={archived}"),
                admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{d}");
        st.insert(format!("devices archived={archived}"), d.to_string());
    }
    let (_, orgs) = app.get("organization/", admin).await;
    let org = orgs
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == b)
        .cloned();
    st.insert("org".into(), format!("{org:?}"));
    let (s, deps) = app
        .get(&format!("organization/{b}/department/"), admin)
        .await;
    assert_eq!(s, StatusCode::OK);
    st.insert("departments".into(), deps.to_string());
    let (s, users) = app
        .call_with(
            Method::GET,
            "account/users_list",
            None,
            Some(admin),
            &[("Organization", &b.to_string())],
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{users}");
    st.insert("users".into(), users.to_string());
    let (_, linked) = app
        .get(
            &format!("account/linked_users_list/?organization={b}"),
            admin,
        )
        .await;
    st.insert("linked users".into(), linked.to_string());
    for id in ids(&users, "id") {
        let (_, links) = app
            .get(
                &format!("account/linked_organizations/?user_id={id}"),
                admin,
            )
            .await;
        st.insert(format!("links of {id}"), links.to_string());
        let row = gemba_cloud::db::users::by_id(&app.state.db, id)
            .await
            .unwrap();
        st.insert(format!("row of {id}"), format!("{row:?}"));
        let activity: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT id, end_time FROM activity_sessions WHERE user_id = $1 ORDER BY id",
        )
        .bind(id)
        .fetch_all(&app.state.db.pool)
        .await
        .unwrap();
        st.insert(format!("activity of {id}"), format!("{activity:?}"));
        let open: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM auth_sessions WHERE user_id = $1 AND revoked = 0",
        )
        .bind(id)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
        st.insert(format!("open sessions of {id}"), open.to_string());
    }
    st
}

both!(
    a_user_of_one_org_changes_and_reads_nothing_of_another_by_any_call,
    |app: TestApp| async move {
        let doc = openapi(&app).await;
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Tenant A").await;
        let b = app.create_org(&admin, "Tenant B").await;
        for (org, name) in [(a, "Assembly"), (b, "Paint"), (b, "Weld")] {
            let (s, v) = app
                .post(
                    &format!("organization/{org}/department/"),
                    json!({"name": name}),
                    Some(&admin),
                )
                .await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
        }
        let a_ws = approved(&app, &admin, "ws@a.test", Role::WorkstationUser, Some(a)).await;
        let shared = approved(
            &app,
            &admin,
            "shared@b.test",
            Role::WorkstationUser,
            Some(b),
        )
        .await;
        let (s, v) = app
            .post(
                "account/linked_organizations",
                json!({"user_id": shared, "organization": a}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let b_user = app.user_in(&admin, "user@b.test", "user", Some(b)).await;
        // Feature control: B and A are subscribed to a feature and have a notification.
        let feature = new_feature(&app, &admin, "Tenant feature").await;
        let a_subscription = new_subscription(&app, &admin, feature, a).await;
        let a_notification = new_notification(&app, &admin, a, "lead@a.test").await;
        let (a_task, a_task_history) = new_task(&app, &admin, a, "Tenant A task").await;
        let (b_task, b_task_history) = new_task(&app, &admin, b, "Tenant B task").await;
        let b_devices = new_devices(&app, &admin, b).await;
        let tenant_b = TenantB {
            task: b_task,
            task_history: b_task_history,
            detector: new_detector(&app, &admin, b_task).await,
            line: new_line(&app, &admin, b, b_task, b_devices.device).await,
            devices: b_devices,
            video: new_video(&app, &admin, b, b_task).await,
            feature,
            subscription: new_subscription(&app, &admin, feature, b).await,
            notification: new_notification(&app, &admin, b, "lead@b.test").await,
            org: b,
            name: "tenant-b".into(),
            admin: approved(&app, &admin, "admin@b.test", Role::OrgAdmin, Some(b)).await,
            ws: approved(&app, &admin, "ws@b.test", Role::WorkstationUser, Some(b)).await,
            shared,
            user: me(&app, Role::User, b_user, PASSWORD, 0).await,
        };
        let b_only: BTreeSet<i64> = [tenant_b.admin, tenant_b.ws, tenant_b.user.id].into();
        let mut callers = vec![];
        for role in [Role::OrgAdmin, Role::SupportUser, Role::User, Role::OrgUser] {
            let r = role.as_str();
            let login = app
                .user_in(&admin, &format!("{r}@a.test"), r, Some(a))
                .await;
            callers.push(me(&app, role, login, PASSWORD, a_ws).await);
        }
        let org_admin_role = role_id(&app, &admin, Role::OrgAdmin).await;
        let world_a = World {
            org_a: a,
            doomed: a,
            other_org: a,
            linked: a_ws,
            ws: a_ws,
            pending_email: "ws@a.test".into(),
            pending_id: a_ws,
            user_role: org_admin_role,
            locked: "ws@a.test",
            feature,
            doomed_feature: feature,
            subscription: a_subscription,
            notification: a_notification,
            doomed_notification: a_notification,
            task: a_task,
            task_history: a_task_history,
            detector: new_detector(&app, &admin, a_task).await,
            devices: new_devices(&app, &admin, a).await,
            video: new_video(&app, &admin, a, a_task).await,
            model_type: default_model_type(&app, &admin).await,
        };

        // Every call that takes an id is in the table.
        let table = cross_tenant(&tenant_b, a, &world_a, org_admin_role, &callers[0]);
        let covered: BTreeSet<&str> = table.iter().map(|c| c.call.op).collect();
        let unlisted: Vec<String> = ops(&doc)
            .iter()
            .filter(|o| o.takes_id() && !covered.contains(o.key.as_str()))
            .map(|o| o.key.clone())
            .collect();
        assert!(
            unlisted.is_empty(),
            "calls taking an id with no cross-tenant entry: {unlisted:#?}"
        );

        // The host names the organisation (here for the super admin, who may act in B).
        let (s, v) = app
            .call_with(
                Method::GET,
                "account/users_list",
                None,
                Some(&admin),
                &[("Host", &format!("{}.localhost", tenant_b.name))],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert!(ids(&v, "id").contains(&tenant_b.admin), "{v}");

        let before = state_of(&app, &admin, b).await;
        assert!(before.len() >= 20, "B has users to compare: {before:?}");
        let mut wrong = vec![];
        for me in &callers {
            // B's ids, in the path, query and body.
            for c in cross_tenant(&tenant_b, a, &world_a, org_admin_role, me) {
                let (s, v) = c.call.send(&app, &me.token, &[]).await;
                let refused = matches!(s, StatusCode::FORBIDDEN | StatusCode::NOT_FOUND)
                    || (s == StatusCode::BAD_REQUEST
                        && c.unknown.is_some_and(|f| v.get(f).is_some()));
                if c.platform {
                    // Read, and B's state (compared below) stays as it was.
                    if s != StatusCode::OK {
                        wrong.push(format!("{} {}: {s} {v}", me.role, c.call.op));
                    }
                    continue;
                }
                if !refused || !is_error_shape(&v) {
                    wrong.push(format!(
                        "{} {} ({}): {s} {v}",
                        me.role, c.call.op, c.call.url
                    ));
                }
            }
            // B as the request's organisation, by header or host: every scoped call.
            let host = format!("{}.localhost", tenant_b.name);
            for (h, val) in [("Organization", b.to_string()), ("Host", host)] {
                for c in matrix(&world_a, me).into_iter().filter(|c| c.need.scoped()) {
                    let (s, v) = c.send(&app, &me.token, &[(h, val.clone())]).await;
                    if s != StatusCode::FORBIDDEN || !is_error_shape(&v) {
                        wrong.push(format!("{} {} with {h} {val}: {s} {v}", me.role, c.op));
                    }
                }
            }
            // What A's users read holds nothing of B.
            for url in [
                "organization/".to_string(),
                "account/linked_organizations/".into(),
                "account/users_list/v2".into(),
                "account/users_list".into(),
                format!("account/linked_users_list/?organization={a}"),
                "feature_control/subscribed_feature/".into(),
                "feature_control/event_notifications".into(),
            ] {
                let (s, v) = app.get(&url, &me.token).await;
                let seen = ids(&v, "id").into_iter().chain(ids(&v, "organization"));
                let leaked: Vec<i64> = if url.starts_with("feature_control/") {
                    // Rows name their organisation as `Organization`; ids are B's rows'.
                    let b_row = if url.contains("subscribed") {
                        tenant_b.subscription
                    } else {
                        tenant_b.notification
                    };
                    let mut l: Vec<i64> = ids(&v, "Organization")
                        .into_iter()
                        .filter(|i| *i != a)
                        .collect();
                    l.extend(ids(&v, "id").into_iter().filter(|i| *i == b_row));
                    l
                } else if url == "organization/" || url.contains("linked_organizations") {
                    seen.filter(|i| *i == b).collect()
                } else {
                    seen.filter(|i| b_only.contains(i)).collect()
                };
                if s.is_server_error() || !leaked.is_empty() {
                    wrong.push(format!("{} read {url}: {s} leaks {leaked:?}: {v}", me.role));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "{} calls reached B:\n{}",
            wrong.len(),
            wrong.join("\n")
        );

        let after = state_of(&app, &admin, b).await;
        for (k, v) in &before {
            assert_eq!(Some(v), after.get(k), "B's {k} changed");
        }
        assert_eq!(before.len(), after.len());
        // B's signed-in user is still signed in.
        assert_eq!(
            app.get("account/roles/", &tenant_b.user.token).await.0,
            StatusCode::OK
        );
    }
);

// ----- 3. bad input --------------------------------------------------------------------

const UNKNOWN_ID: i64 = 999_999_999;

/// A value of the right type for a property, naming nothing that exists (ids are
/// unknown) except an e-mail address, which names a real account so the unknown id
/// is what the call trips on.
fn sample(name: &str, schema: &Value, email: &str) -> Value {
    if is_type(schema, "integer") {
        json!(UNKNOWN_ID)
    } else if is_type(schema, "boolean") {
        json!(false)
    } else if is_type(schema, "object") {
        json!({})
    } else if is_type(schema, "array") {
        json!([])
    } else if name.contains("email") {
        json!(email)
    } else {
        json!("x")
    }
}

/// A value of another type than the schema's.
fn wrong_type(schema: &Value) -> Value {
    if is_type(schema, "string") || is_type(schema, "object") || is_type(schema, "array") {
        json!(12345)
    } else {
        json!("not-a-number-or-flag")
    }
}

/// The URL of `op` with unknown ids in the path and `query`.
fn url_of(op: &Op, query: &[(String, String)]) -> String {
    let mut path = op.path.clone();
    for (name, p) in op.params("path") {
        let v = if is_type(&p["schema"], "integer") {
            UNKNOWN_ID.to_string()
        } else {
            "unknown-token".into()
        };
        path = path.replace(&format!("{{{name}}}"), &v);
    }
    let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if q.is_empty() {
        path
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

/// Query values of the right types: unknown ids, page 1, real e-mail addresses.
fn query_of(op: &Op, email: &str) -> Vec<(String, String)> {
    op.params("query")
        .into_iter()
        .map(|(name, p)| {
            let s = &p["schema"];
            let v = if matches!(name, "page" | "limit") {
                "1".to_string()
            } else if is_type(s, "integer") {
                UNKNOWN_ID.to_string()
            } else if is_type(s, "boolean") {
                "false".into()
            } else if name.contains("email") || name == "user" || name == "recipient" {
                email.into()
            } else {
                "x".into()
            };
            (name.to_string(), v)
        })
        .collect()
}

/// Row counts of every table, and the users and organisations in full.
async fn everything(app: &TestApp) -> BTreeMap<String, String> {
    use gemba_cloud::db::Backend;
    let pool = &app.state.db.pool;
    let tables: Vec<String> = match app.state.db.backend {
        Backend::Sqlite => sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        ),
        Backend::Postgres => sqlx::query_scalar(
            "SELECT table_name::TEXT FROM information_schema.tables WHERE table_schema = 'public'",
        ),
    }
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(tables.iter().any(|t| t == "outbox"), "{tables:?}");
    let mut st = BTreeMap::new();
    for t in tables {
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {t}")))
            .fetch_one(pool)
            .await
            .unwrap();
        st.insert(format!("rows of {t}"), n.to_string());
    }
    let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM users ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    for id in ids {
        let u = gemba_cloud::db::users::by_id(&app.state.db, id)
            .await
            .unwrap();
        st.insert(format!("user {id}"), format!("{u:?}"));
    }
    let (orgs, _) = gemba_cloud::db::orgs::page(&app.state.db, "", 0, 1000)
        .await
        .unwrap();
    st.insert("organizations".into(), format!("{orgs:?}"));
    let links: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT user_id, organization_id FROM user_organizations ORDER BY user_id, organization_id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    st.insert("links".into(), format!("{links:?}"));
    st
}

both!(
    bad_input_to_every_call_gets_a_clear_4xx_and_changes_nothing,
    |app: TestApp| async move {
        let doc = openapi(&app).await;
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Input").await;
        let email = "pending@input.test";
        pending(&app, email).await;
        // The super admin reaches every call's body; A is the request's organisation.
        let headers = [("Organization", org.to_string())];
        let before = everything(&app).await;

        let mut wrong = vec![];
        let mut tried = BTreeSet::new();
        for op in ops(&doc) {
            let m = op.method.as_str();
            let query = query_of(&op, email);
            let url = url_of(&op, &query);
            let mut check = |what: String, s: StatusCode, v: &Value, ok: bool| {
                if !(ok && s.is_client_error() && is_error_shape(v)) {
                    wrong.push(format!("{} {what}: {s} {v}", op.key));
                }
            };
            let send = |body: Vec<u8>, ct: Option<&'static str>| {
                raw(&app, m, &url, &admin, &headers, Some((body, ct)))
            };
            let json_ct = Some("application/json");

            if let Some(schema) = op.body_schema()
                && matches!(m, "POST" | "PATCH" | "PUT")
            {
                tried.insert(op.key.clone());
                let props = op.body_props();
                let base: serde_json::Map<String, Value> = props
                    .iter()
                    .map(|(k, s)| (k.to_string(), sample(k, s, email)))
                    .collect();
                assert!(is_type(schema, "object"), "{}: {schema}", op.key);
                // Not JSON, not an object, not sent as JSON.
                for bad in [
                    "{\"email\": ",
                    "{'email': 'x'}",
                    "[]",
                    "[{}]",
                    "null",
                    "\"text\"",
                    "42",
                    "",
                ] {
                    let (s, v) = send(bad.into(), json_ct).await;
                    check(format!("body {bad:?}"), s, &v, s == StatusCode::BAD_REQUEST);
                }
                let (s, v) = send(serde_json::to_vec(&base).unwrap(), None).await;
                check(
                    "without a JSON content type".into(),
                    s,
                    &v,
                    s == StatusCode::BAD_REQUEST,
                );
                let (s, v) = send(serde_json::to_vec(&base).unwrap(), Some("text/plain")).await;
                check("as text/plain".into(), s, &v, s == StatusCode::BAD_REQUEST);
                // Each field with a wrong type, and each required field left out: a 400
                // on that field.
                for (k, s) in &props {
                    let mut b = base.clone();
                    b.insert(k.to_string(), wrong_type(s));
                    let (st, v) = send(serde_json::to_vec(&b).unwrap(), json_ct).await;
                    check(
                        format!("{k} of the wrong type"),
                        st,
                        &v,
                        st == StatusCode::BAD_REQUEST && v.get(*k).is_some(),
                    );
                }
                for k in op.required() {
                    let mut b = base.clone();
                    b.remove(k);
                    let (st, v) = send(serde_json::to_vec(&b).unwrap(), json_ct).await;
                    check(
                        format!("{k} missing"),
                        st,
                        &v,
                        st == StatusCode::BAD_REQUEST && v.get(k).is_some(),
                    );
                }
                // 2 MiB.
                let mut b = base.clone();
                b.insert("padding".into(), json!("a".repeat(2 * 1024 * 1024)));
                let (s, v) = send(serde_json::to_vec(&b).unwrap(), json_ct).await;
                check("of 2 MiB".into(), s, &v, s == StatusCode::PAYLOAD_TOO_LARGE);
                // Right types, unknown ids.
                if op.takes_id() {
                    let (s, v) = send(serde_json::to_vec(&base).unwrap(), json_ct).await;
                    check("with unknown ids".into(), s, &v, true);
                }
            } else if op.takes_id() || !op.params("path").is_empty() {
                tried.insert(op.key.clone());
                let (s, v) = raw(&app, m, &url, &admin, &headers, None).await;
                check(format!("{url} (unknown ids)"), s, &v, true);
            }
            // Query values of the wrong type, and required ones left out.
            for (name, p) in op.params("query") {
                if is_type(&p["schema"], "integer") || is_type(&p["schema"], "boolean") {
                    tried.insert(op.key.clone());
                    let q: Vec<(String, String)> = query
                        .iter()
                        .map(|(k, v)| {
                            let v = if k == name { "abc".into() } else { v.clone() };
                            (k.clone(), v)
                        })
                        .collect();
                    let u = url_of(&op, &q);
                    let (s, v) = raw(&app, m, &u, &admin, &headers, None).await;
                    check(u.clone(), s, &v, s == StatusCode::BAD_REQUEST);
                }
            }
            if op
                .params("query")
                .iter()
                .any(|(_, p)| p["required"] == true)
            {
                tried.insert(op.key.clone());
                let u = url_of(&op, &[]);
                let (s, v) = raw(&app, m, &u, &admin, &headers, None).await;
                check(
                    format!("{u} without its query"),
                    s,
                    &v,
                    s == StatusCode::BAD_REQUEST,
                );
            }
        }
        assert!(
            wrong.is_empty(),
            "{} bad answers:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
        // Every call that takes a body was walked.
        let bodies: Vec<String> = ops(&doc)
            .iter()
            .filter(|o| o.body_schema().is_some() && !tried.contains(&o.key))
            .map(|o| o.key.clone())
            .collect();
        assert!(bodies.is_empty(), "{bodies:?}");
        assert!(tried.len() >= 30, "{tried:?}");

        let after = everything(&app).await;
        for (k, v) in &before {
            assert_eq!(Some(v), after.get(k), "{k} changed");
        }
        assert_eq!(before.len(), after.len());
    }
);

both!(
    a_refused_switch_leaves_the_current_organization_as_it_was,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let x = app.create_org(&admin, "Xray").await;
        let y = app.create_org(&admin, "Yankee").await;
        let login = app
            .user_in(&admin, "mover@x.test", "org_admin", Some(x))
            .await;
        let (t, id) = (token(&login), login["id"].as_i64().unwrap());
        let (s, v) = app
            .post(
                "account/linked_organizations",
                json!({"user_id": id, "organization": y}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let current = || async {
            let u = gemba_cloud::db::users::by_id(&app.state.db, id)
                .await
                .unwrap();
            u.unwrap().organization_id
        };
        for local_storage in [
            json!({"big": "a".repeat(70 * 1024)}),
            json!([1, 2]),
            json!("text"),
        ] {
            let (s, v) = app
                .patch(
                    "account/switch_user_organization",
                    json!({"organization": y, "local_storage": local_storage}),
                    Some(&t),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v["local_storage"][0].is_string(), "{v}");
            assert_eq!(current().await, Some(x));
        }
        let (s, v) = app
            .patch(
                "account/switch_user_organization",
                json!({"organization": y, "local_storage": {"tab": "users"}}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(current().await, Some(y));
        let (_, v) = app.get("account/fetch_local_storage_data", &t).await;
        assert_eq!(v, json!({"tab": "users"}));
    }
);

both!(
    an_array_body_is_refused_not_read_as_fields,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (s, v) = app
            .post(
                "feature_control/feature/",
                serde_json::json!(["Foo"]),
                Some(&admin),
            )
            .await;
        assert_eq!(s, reqwest::StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "The request body must be a JSON object."
        );
        let (_, list) = app.get("feature_control/feature/", &admin).await;
        assert!(!list.to_string().contains("\"Foo\""), "{list}");
    }
);
