//! Inputs the OpenAPI fuzzer (`tests/fuzz.sh`, schemathesis) found to break the
//! service, kept as tests so they stay fixed.

use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

both!(
    a_page_number_past_any_offset_is_a_400_not_a_crash,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        app.create_org(&admin, "Paged").await;
        // (page - 1) * 10 overflowed: the debug build panicked and dropped the
        // connection, the release build would have sent a negative OFFSET.
        for path in [
            "account/users_list/v2?is_admin=true&page=9223372036854775806",
            "organization/get_organizations?page=9223372036854775806",
        ] {
            let (s, v) = app.get(path, &admin).await;
            assert_eq!(
                (s, v),
                (StatusCode::BAD_REQUEST, json!({"page": ["Invalid page."]})),
                "{path}"
            );
        }
        // Far out but representable: an empty page with the true count.
        let (s, v) = app
            .get(
                "organization/get_organizations?page=922337203685477580",
                &admin,
            )
            .await;
        assert_eq!((s, v), (StatusCode::OK, json!({"results": [], "count": 1})));
        let (s, v) = app
            .get(
                "account/users_list/v2?is_admin=true&page=922337203685477580",
                &admin,
            )
            .await;
        assert_eq!((s, &v["results"]), (StatusCode::OK, &json!([])), "{v}");
        assert_eq!(v["count"], json!(1), "{v}");
    }
);
