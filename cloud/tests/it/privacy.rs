//! The privacy policy (`GET /api/privacy_policy/`, public, issue 31): the operator's
//! text from the configured file with its contact, else the default policy with this
//! deployment's retention; an unreadable file is a 503, never the default instead.

use gemba_shared::api::v1::privacy::PrivacyPolicy;
use reqwest::{Method, StatusCode};

use crate::common::*;
use crate::{both, both_with};

const OPERATOR: &str =
    "# Acme privacy notice\n\nWe keep *cycle data* for 2 years.\n\n- item <b>one</b>\n";

async fn policy(app: &TestApp) -> (StatusCode, serde_json::Value) {
    app.call(Method::GET, "privacy_policy/", None, None).await
}

both_with!(
    the_operators_policy_and_contact_are_served_as_written,
    |s: &mut gemba_cloud::config::Settings| {
        let path = std::env::temp_dir().join(format!(
            "gemba-privacy-{}.md",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::write(&path, OPERATOR).unwrap();
        s.privacy_policy = Some(path);
        s.privacy_contact = Some(" privacy@acme.test ".into());
    },
    |app: TestApp| async move {
        let (s, v) = policy(&app).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let p: PrivacyPolicy = serde_json::from_value(v).unwrap();
        assert_eq!(
            p,
            PrivacyPolicy {
                markdown: OPERATOR.into(),
                custom: true,
                contact: Some("privacy@acme.test".into()),
            }
        );
    }
);

both_with!(
    the_default_policy_states_this_deployments_retention,
    |s: &mut gemba_cloud::config::Settings| {
        s.clip_days = 9;
        s.screenshot_days = 3;
    },
    |app: TestApp| async move {
        // Signed out, and signed in alike.
        let (s, v) = policy(&app).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let p: PrivacyPolicy = serde_json::from_value(v).unwrap();
        assert!(!p.custom);
        assert_eq!(p.contact, None);
        for said in [
            "# Privacy Policy",
            "clips of single work cycles are kept for 9 days",
            "screenshots are kept for 3 days",
            "this deployment's own servers",
            "deleted",
        ] {
            assert!(p.markdown.contains(said), "{said}: {}", p.markdown);
        }
        let admin = app.admin_token().await;
        let (s, _) = app.get("privacy_policy/", &admin).await;
        assert_eq!(s, StatusCode::OK);
    }
);

both_with!(
    an_unreadable_policy_file_is_a_503_not_the_default,
    |s: &mut gemba_cloud::config::Settings| {
        s.privacy_policy = Some("/nonexistent/gemba/privacy.md".into());
    },
    |app: TestApp| async move {
        let (s, v) = policy(&app).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
        assert_eq!(v["detail"], "The privacy policy cannot be shown right now.");
    }
);

both!(
    the_privacy_policy_needs_no_sign_in,
    |app: TestApp| async move {
        let (s, _) = policy(&app).await;
        assert_eq!(s, StatusCode::OK);
    }
);
