//! S3's presigned post (a browser form that uploads one object straight to the
//! bucket): a POST policy signed with AWS Signature Version 4. Pure: the time and the
//! credentials come in, the form's fields go out.
//!
//! The policy pins the bucket and the object's key, bounds the file's size
//! (`content-length-range`) and expires; S3 refuses a form that breaks any of it.

use std::collections::BTreeMap;

use base64::Engine;
use ring::hmac;
use serde_json::json;

/// Who signs, and where.
pub struct Signing<'a> {
    pub key_id: &'a str,
    pub secret: &'a str,
    /// A temporary credential's session token.
    pub token: Option<&'a str>,
    pub region: &'a str,
}

const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// The form fields that upload object `key` of `bucket` of at most `max_bytes`, signed
/// at `now` and good until `expires_at` (Unix seconds).
pub fn fields(
    s: &Signing<'_>,
    bucket: &str,
    key: &str,
    now: i64,
    expires_at: i64,
    max_bytes: i64,
) -> anyhow::Result<BTreeMap<String, String>> {
    let at = chrono::DateTime::from_timestamp(now, 0)
        .ok_or_else(|| anyhow::anyhow!("a time out of range"))?;
    let until = chrono::DateTime::from_timestamp(expires_at, 0)
        .ok_or_else(|| anyhow::anyhow!("a time out of range"))?;
    let date = at.format("%Y%m%d").to_string();
    let amz_date = at.format("%Y%m%dT%H%M%SZ").to_string();
    let credential = format!("{}/{date}/{}/s3/aws4_request", s.key_id, s.region);
    let mut conditions = vec![
        json!({ "bucket": bucket }),
        json!({ "key": key }),
        json!(["content-length-range", 0, max_bytes]),
        json!({ "x-amz-algorithm": ALGORITHM }),
        json!({ "x-amz-credential": credential }),
        json!({ "x-amz-date": amz_date }),
    ];
    if let Some(t) = s.token {
        conditions.push(json!({ "x-amz-security-token": t }));
    }
    let policy = json!({
        "expiration": until.format("%Y-%m-%dT%H:%M:%S.000Z").to_string(),
        "conditions": conditions,
    });
    let policy = base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&policy)?);
    let signature = hex(hmac::sign(
        &signing_key(s.secret, &date, s.region, "s3"),
        policy.as_bytes(),
    )
    .as_ref());
    let mut out = BTreeMap::new();
    out.insert("key".into(), key.to_string());
    out.insert("policy".into(), policy);
    out.insert("x-amz-algorithm".into(), ALGORITHM.into());
    out.insert("x-amz-credential".into(), credential);
    out.insert("x-amz-date".into(), amz_date);
    out.insert("x-amz-signature".into(), signature);
    if let Some(t) = s.token {
        out.insert("x-amz-security-token".into(), t.to_string());
    }
    Ok(out)
}

/// SigV4's signing key: the secret HMAC'd with the date, region, service and
/// `aws4_request` in turn.
fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> hmac::Key {
    let step =
        |key: &[u8], msg: &str| hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), msg.as_bytes());
    let k = step(format!("AWS4{secret}").as_bytes(), date);
    let k = step(k.as_ref(), region);
    let k = step(k.as_ref(), service);
    let k = step(k.as_ref(), "aws4_request");
    hmac::Key::new(hmac::HMAC_SHA256, k.as_ref())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

    /// The signing key of AWS's own SigV4 examples ("Derive a signing key"): signing
    /// the empty message with it and with the published key gives one signature.
    #[test]
    fn the_signing_key_is_aws_documented_one() {
        for (date, expected) in [
            (
                "20150830",
                "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9",
            ),
            (
                "20120215",
                "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d",
            ),
        ] {
            let ours = hmac::sign(&signing_key(SECRET, date, "us-east-1", "iam"), b"m");
            let bytes: Vec<u8> = (0..32)
                .map(|i| u8::from_str_radix(&expected[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            let theirs = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, &bytes), b"m");
            assert_eq!(ours.as_ref(), theirs.as_ref(), "{date}");
        }
    }

    #[test]
    fn the_policy_pins_bucket_key_size_and_expiry() {
        let s = Signing {
            key_id: "AKIDEXAMPLE",
            secret: SECRET,
            token: Some("session"),
            region: "eu-west-1",
        };
        // 2026-11-29 07:00:00 UTC.
        let now = 1_795_935_600;
        let f = fields(&s, "media", "org/1/files/b/a.txt", now, now + 3600, 100).unwrap();
        assert_eq!(f["key"], "org/1/files/b/a.txt");
        assert_eq!(f["x-amz-date"], "20261129T070000Z");
        assert_eq!(
            f["x-amz-credential"],
            "AKIDEXAMPLE/20261129/eu-west-1/s3/aws4_request"
        );
        assert_eq!(f["x-amz-security-token"], "session");
        let policy: serde_json::Value = serde_json::from_slice(
            &base64::engine::general_purpose::STANDARD
                .decode(&f["policy"])
                .unwrap(),
        )
        .unwrap();
        assert_eq!(policy["expiration"], "2026-11-29T08:00:00.000Z");
        let c = policy["conditions"].as_array().unwrap();
        assert!(c.contains(&json!({"bucket": "media"})));
        assert!(c.contains(&json!({"key": "org/1/files/b/a.txt"})));
        assert!(c.contains(&json!(["content-length-range", 0, 100])));
        // The signature is the policy's, under the day's key: another policy (another
        // size) signs differently.
        let sig = hex(hmac::sign(
            &signing_key(SECRET, "20261129", "eu-west-1", "s3"),
            f["policy"].as_bytes(),
        )
        .as_ref());
        assert_eq!(f["x-amz-signature"], sig);
        let other = fields(&s, "media", "org/1/files/b/a.txt", now, now + 3600, 101).unwrap();
        assert_ne!(other["x-amz-signature"], sig);
    }
}
