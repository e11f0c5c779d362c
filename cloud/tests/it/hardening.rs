//! Hardening (issue 28), from the outside: the calls that mail an address the caller
//! names are bounded per address and per client (the defaults, 5 and 30 an hour),
//! answer alike for known and unknown addresses, and send nothing once refused; a
//! forwarded address counts only from a trusted proxy.

use gemba_cloud::limits::MailLimit;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::*;
use crate::{both, both_with};

const TOO_MANY: &str = "Too many e-mails were requested. Please try again later.";

fn defaults(s: &mut gemba_cloud::config::Settings) {
    s.mail_limit = MailLimit::default();
}

/// `PATCH account/forgot_password/` for `email`, optionally with an `X-Forwarded-For`.
async fn forgot(app: &TestApp, email: &str, forwarded: Option<&str>) -> (StatusCode, Value) {
    let headers: Vec<(&str, &str)> = forwarded
        .map(|f| vec![("x-forwarded-for", f)])
        .unwrap_or_default();
    app.call_with(
        Method::PATCH,
        "account/forgot_password/",
        Some(json!({ "email": email })),
        None,
        &headers,
    )
    .await
}

async fn mails_to(app: &TestApp, email: &str) -> usize {
    gemba_cloud::db::outbox::list(&app.state.db, Some(email), 100)
        .await
        .unwrap()
        .len()
}

both_with!(
    an_address_gets_five_mails_an_hour_known_or_not,
    defaults,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Plant A").await;
        app.quick_user("known@a.test", "Known", "org_user", &[a])
            .await;
        for email in ["known@a.test", "nobody@a.test"] {
            let mut answers = vec![];
            for _ in 0..5 {
                answers.push(forgot(&app, email, None).await);
            }
            let sixth = forgot(&app, email, None).await;
            // The same answers for both addresses: nothing tells them apart.
            for (s, v) in &answers {
                assert_eq!(*s, StatusCode::OK, "{email}: {v}");
                assert_eq!(*v, answers[0].1);
            }
            assert_eq!(sixth.0, StatusCode::TOO_MANY_REQUESTS, "{email}");
            assert_eq!(sixth.1, json!({ "detail": TOO_MANY }));
        }
        // Five reset mails went to the account, none after the refusal.
        assert_eq!(mails_to(&app, "known@a.test").await, 5);
        assert_eq!(mails_to(&app, "nobody@a.test").await, 0);
        // Letter case does not buy more.
        assert_eq!(
            forgot(&app, "KNOWN@a.test", None).await.0,
            StatusCode::TOO_MANY_REQUESTS
        );
        // Another address still has its own allowance.
        assert_eq!(forgot(&app, "other@a.test", None).await.0, StatusCode::OK);
    }
);

both_with!(
    every_mailing_call_draws_on_the_same_allowance,
    defaults,
    |app: TestApp| async move {
        let email = "new@b.test";
        let register = json!({
            "name": "Nina", "lastname": "", "email": email, "password": PASSWORD,
        });
        let (s, v) = app.post("account/register", register.clone(), None).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        for path in [
            "account/resend-verification-email",
            "account/resend-verification-email",
            "account/admin-verification-email",
        ] {
            let (s, v) = app.post(path, json!({ "email": email }), None).await;
            assert_eq!(s, StatusCode::OK, "{path}: {v}");
        }
        let (s, _) = forgot(&app, email, None).await;
        assert_eq!(s, StatusCode::OK);
        // The sixth, whichever call it is, is refused and writes nothing.
        let (s, v) = app
            .post(
                "account/resend-verification-email",
                json!({ "email": email }),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
        let (s, v) = app.post("account/register", register, None).await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
        assert_eq!(v["detail"], TOO_MANY);
        // One verification at sign-up and two again; the reset mail; no more.
        assert_eq!(mails_to(&app, email).await, 4);
    }
);

both_with!(
    a_client_gets_thirty_mails_an_hour_and_forged_forwarding_does_not_help,
    defaults,
    |app: TestApp| async move {
        for n in 0..30 {
            let (s, v) = forgot(&app, &format!("u{n}@c.test"), Some(&format!("10.1.0.{n}"))).await;
            assert_eq!(s, StatusCode::OK, "{n}: {v}");
        }
        // The peer (127.0.0.1) is no trusted proxy: its X-Forwarded-For is ignored.
        let (s, v) = forgot(&app, "u99@c.test", Some("10.9.9.9")).await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
        assert_eq!(mails_to(&app, "u99@c.test").await, 0);
    }
);

both_with!(
    behind_a_trusted_proxy_each_forwarded_client_has_its_own_allowance,
    |s: &mut gemba_cloud::config::Settings| {
        s.mail_limit = MailLimit::default();
        s.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    },
    |app: TestApp| async move {
        for n in 0..30 {
            let (s, _) = forgot(&app, &format!("u{n}@d.test"), Some("10.2.0.1")).await;
            assert_eq!(s, StatusCode::OK);
        }
        let (s, _) = forgot(&app, "u30@d.test", Some("10.2.0.1")).await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
        // Another client behind the same proxy; a forged first hop changes nothing.
        let (s, v) = forgot(&app, "u30@d.test", Some("10.2.0.1, 10.2.0.2")).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (s, _) = forgot(&app, "u31@d.test", Some("10.2.0.2, 10.2.0.1")).await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
    }
);

both_with!(
    a_change_of_address_is_bounded_too,
    defaults,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Plant A").await;
        let tok = app.signed_in("eng@a.test", "org_user", a).await;
        for n in 0..6 {
            let (s, v) = app
                .post(
                    "account/request_change_email/",
                    json!({ "email": "next@a.test", "password": PASSWORD }),
                    Some(&tok),
                )
                .await;
            let want = if n < 5 {
                StatusCode::OK
            } else {
                StatusCode::TOO_MANY_REQUESTS
            };
            assert_eq!(s, want, "{n}: {v}");
        }
        assert_eq!(mails_to(&app, "next@a.test").await, 5);
    }
);

/// The security headers on an answer.
fn security_headers(h: &reqwest::header::HeaderMap) -> [Option<&str>; 4] {
    [
        "content-security-policy",
        "x-content-type-options",
        "x-frame-options",
        "referrer-policy",
    ]
    .map(|n| h.get(n).and_then(|v| v.to_str().ok()))
}

both!(
    every_answer_carries_the_security_headers_and_violations_are_reported,
    |app: TestApp| async move {
        let root = app.base.trim_end_matches("/api").to_string();
        let want = [
            Some(gemba_cloud::http::security::CSP),
            Some("nosniff"),
            Some("DENY"),
            Some("no-referrer"),
        ];
        // An API answer, an API error, a portal page and a file, each with the headers.
        for (url, accept) in [
            (format!("{}/health", app.base), "application/json"),
            (format!("{}/no/such/call", app.base), "application/json"),
            (format!("{root}/login"), "text/html"),
            (format!("{root}/portal-config.json"), "application/json"),
        ] {
            let r = app
                .client
                .get(&url)
                .header("accept", accept)
                .send()
                .await
                .unwrap();
            assert_eq!(security_headers(r.headers()), want, "{url}: {}", r.status());
        }
        let csp = gemba_cloud::http::security::CSP;
        for directive in [
            "script-src 'self';",
            "frame-ancestors 'none'",
            "object-src 'none'",
            "report-uri /api/csp-report",
        ] {
            assert!(csp.contains(directive), "{directive}");
        }
        // A browser's report, in both formats, is taken; anything else is refused.
        let post = |body: Vec<u8>| {
            app.client
                .post(format!("{}/csp-report", app.base))
                .header("content-type", "application/csp-report")
                .body(body)
                .send()
        };
        let old = json!({"csp-report": {"document-uri": "http://localhost/login",
            "violated-directive": "script-src-elem", "blocked-uri": "inline"}});
        let new = json!([{"type": "csp-violation", "body": {"documentURL": "http://localhost/",
            "effectiveDirective": "img-src", "blockedURL": "https://elsewhere.test/p.png"}}]);
        for ok in [old, new] {
            let r = post(serde_json::to_vec(&ok).unwrap()).await.unwrap();
            assert_eq!(r.status(), StatusCode::NO_CONTENT, "{ok}");
        }
        for bad in [b"not json".to_vec(), b"{\"other\": 1}".to_vec(), vec![]] {
            let r = post(bad).await.unwrap();
            assert_eq!(r.status(), StatusCode::BAD_REQUEST);
            let v: Value = r.json().await.unwrap();
            assert_eq!(
                v["non_field_errors"][0],
                "A content security policy report is a JSON object."
            );
        }
    }
);
