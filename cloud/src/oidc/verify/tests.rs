//! Tokens signed here with fixed test keys (RSA, PKCS#1 DER in base64; made for these
//! tests, used nowhere else).

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::{Value, json};

use super::*;

const KEY_DER: &str = "MIIEpQIBAAKCAQEA2O9nyv5R2kiwuVcRRN5lyzkXN2mvHrBB05wOnemaHewnovgMhMxJt3j17ISWFSP7/SLrCQW1\
SAAqssqCd4S5IPIkJAWL9SvRS134MmTwU/UoT2VVk3EjwzRBl9+mrc4zxxADwMofQGJ94zwgILT3vV4xDF0trmEb\
B6n5Q9i5rxsnBvGc+qHp8Yu4e741cFo9iNpUEcRypZ7Y0RiT8QLw+v/gB9C9z2E0CSFHgMWLEQ7DzC902AiOTUlF\
FG9V9byzmnI5XS43XML1r55gPLJfobQzQ++99M+v5typfRFKPxDqOkZah090v52+kVRWYj0YUipbvQ9VZ14kJnuc\
TT71qQIDAQABAoIBAACRbu6GiDkXveO8XUKWiQJ1W7DU1WUxjbiTxOuHsjRAGzH3b5P083/4IH++MKTtR1KIQgCP\
6+O8gWAevOT6e2AhVjQkchOCKf4GKNlb74+uuYxsreLRFeiD1WSkDKwRmUvdCD974AVThLQgww5G3wu3SI5ZW55k\
aXVVjf4uHf1eBfnz7ZLnmhZcTUvql6NNT0DS8eRgP5DtYISA5QTDlKIJ7m11k/cGmUeZhUrSZG/oh9mv46lE8f04\
gei1hEEKzW9foWdoF/jpUg25e4MF96ed1udxv0gneXAIFrKSmJLV9snEsJAoj7eJFwEkD6voAdUDOhrAA9moz06B\
r/yyQVECgYEA8ThRLIvb9AZXh+UXyWVwpWc4KzlbLXwFifrv+R/jdf4RzjuaQdxQI3w8+3d98H3r7bw2qRfgvXJ5\
wIyQ71WdHF34166IlzYh1PGFCDntI3rmvdzuHcqubde6fuvrHMfmQEBmy1I3rZkUj12Jdk77FhNxZpnBRQzm7sV1\
p5lDE/ECgYEA5joqj6IomywRdi7GaTeNly+x30b0c1PSceGpyKJcmrGBylzkXxS4OvO9HdgnVYL2cotrUWMkoi4p\
AhBG3p0OSNmOaOYG8r33Ioo2E/JkwnV+juVh3vW6MvKRIw4B+VxC54grgsFOaHlsOXxpRG941+QEq1Y2+wYi+3rD\
NxE41TkCgYEAvMgQb0Z9u3sDIe2fMhTblfc0NE/NFcnMI/JpwJS+VWej0709unGLnlnq9/rKa16BOCtms+tmDZ37\
vz/DZiugq8S3rUSAzaalz5u9O3TqLCxRTSIMkPBAluKQqChGdt3TS1GboWAVBx2Yw6K2pAqn4t0QkPWgFkREr3WF\
4MbHgmECgYEAvsmZF6qECAN+/PdKSUtWNOG7f5JnZWMjVGhzsOaL404ShsZwIjMjcQcnw6GrBvwei1HqP2nvo86p\
ASLH+BcjDU/s6hUl0OeH88GhiuomgdeoZ3bDomb0ROArUmd7T1AbyY9Yr2TOO1nUS9dDzQirlg1JqUsrCN9PAiP7\
vpixBlECgYEAr35g1gYl2wr1QpsryOu2JmL6/rJ+0/fkXolast8d0AJ5wgvzHapjQ0Q1ySPaxfykgTRpCq49jELK\
IaPQhAv19i7cGv901n150z6A+SRzOLO2guWLiHUgmk8dJ9RLgknDaJ2HhHESg52GdIw0g/hMGnBT9+SajLBGSIt5\
GbfMbao=";
const KEY_N: &str = "
2O9nyv5R2kiwuVcRRN5lyzkXN2mvHrBB05wOnemaHewnovgMhMxJt3j17ISWFSP7_SLrCQW1SAAqssqCd4S5IPIkJAWL9SvRS134MmTwU_UoT2VVk3EjwzRBl9-mrc4zxxADwMofQGJ94zwgILT3vV4xDF0trmEbB6n5Q9i5rxsnBvGc-qHp8Yu4e741cFo9iNpUEcRypZ7Y0RiT8QLw-v_gB9C9z2E0CSFHgMWLEQ7DzC902AiOTUlFFG9V9byzmnI5XS43XML1r55gPLJfobQzQ--99M-v5typfRFKPxDqOkZah090v52-kVRWYj0YUipbvQ9VZ14kJnucTT71qQ";
const OTHER_DER: &str = "MIIEogIBAAKCAQEApIcS+J8FdLF5ynLmKfNyaV5oJQuOWiUgXw1kWLx9SUWLBdRwcw3dx5uVb39UEG7RdwMXyIkd\
7yXoQk6YFI2L0IRYFx9U9f03Xm0SV2jozWP5rZe8E3Jqw9MeoaXCaiQrLkmemDCmdsYdXKg/p2tF2tOlIpF5bzYG\
X94zGxP3N6CxAkXUTD4N6Lur7f+t4CAMZKjVMFwxj1tEv4RuieXMrcVeVSIOr9792cKW44sXCod1gQwN+HK3+a78\
vAl+EqD+MVf7uD0L6/ncscyiOqMPV/jdEN1N6rlN5mC2lRxyP9AWR9FGODo5izdh79A/C58P7quvtuCgEODqUGav\
H6V3twIDAQABAoIBAExHE1SQ5UakwYJKosrwQyr2yfHi2ayRaeCnpM4/FRbTVxDs3PV6iEfyqeV3ctHrjtFObchb\
SbWGLZgQOBHPTfLuaKjPreQd8X2ls8syqDwRDcCdiGS7tyPyzVDEOM5c1mgvWYfVhleqohJDLr+/zDMXzIeqSlJ1\
CZ+ItMjpCMSQzSFpnrWzAkCN+uBZbSizJy/NX7IAeDGhPgaMRMMaXtBFLZMGTJ3d0YTZ6Ad4iVmEyR+rBGQzb/6L\
Kv3P39Qc8IEmJTK1ohQg1yuPsyb4bgdTcEeTWx52KQboWb3lJVpsfGyBFe5OFkK15i/UcQuKppIbpBhyegzpyDwn\
gw9o1oECgYEA0utMI4znR3gPHY7sgCjdmUtBHo8J92jOYP4lBkWB3qnXdVYJl5ta75ReG9+Z9WNyH2/PBCAae6aS\
4LGEfKZmWmVwKIK7hISdZy2ScR5mtkIXgY/MqPEk9nhk9/dVOUHF+5Vbvfpp/EbKYANixNaQI1J+0jZrARNcfBoy\
Ly/FC10CgYEAx7FogFtukbNEY2G8HR3Yfdvk9D4Z7ShbsA7va+mJhmSwDTDOl/AqJOVyqWCvVp1klLcm5VGbEKFW\
zi5r84EERfyD4QUEypcxfra47AhSR5AA+SLwRJJw0vAyM5OtT+nNhJSNgekeyzaSrcFVm+jLGR+6oXpWdZwE2+Uw\
DsZj8iMCgYBBWReY+CH8Ga2NOef6eS7XPOKrJiQvXHB8yqEMBWMMatDPkN2d9EtDaVOTDT81MR99r/WS0KOD5gMh\
zL5ApImXvk/2rTKOB0yBWDRECehG1clUogoF2dja6EhYL3BfMgq2PPtUrA5EVGaFQudKFzRHTVrvpF6Y0bfY14Du\
77z8HQKBgGlkw8/C8edqIvUE10DSyLkcfok94Xcers2MBGcC+fd5WsWLde4Q7l1M0Ch/A+uF5FjtFVVArcOoM2Vc\
cNMyy6uYa44ulOnLxG6pR44jkjF82lajTwYR+AQMi6JXFciwkCyiLtFa1UrRgba87E7+HXskGN8y70DhWFsqaiPS\
J1vbAoGARIkQhFq/I0mUXu6Z7IoawE68TWbEADPb108R73GudV7mmxTIZuzRdFfLtpUoJHAMJ5SCIuD65JILlYU0\
CqzHn1nn3D24xkr/XYHaGFOxdySjUcbtDimGxsEVBmq1TSUtV2TwNG4V71rjFmtth3guDhsEMfNN5Ze2uaWO7i/3\
gVg=";

const ISS: &str = "https://login.example.test/tenant/v2.0";
const AUD: &str = "gemba-client";

fn jwks() -> JwkSet {
    serde_json::from_value(json!({"keys": [{
        "kty": "RSA", "use": "sig", "alg": "RS256", "kid": "k1", "n": KEY_N.trim(), "e": "AQAB"
    }]}))
    .unwrap()
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn claims() -> Value {
    json!({
        "iss": ISS, "aud": AUD, "sub": "abc", "nonce": "n-1",
        "iat": now(), "exp": now() + 300,
        "email": "ada@example.test", "email_verified": true,
        "given_name": "Ada", "family_name": "Lovelace",
    })
}

fn sign_with(der_b64: &str, kid: Option<&str>, alg: Algorithm, c: &Value) -> String {
    use base64::Engine;
    let der = base64::engine::general_purpose::STANDARD
        .decode(der_b64)
        .unwrap();
    let mut h = Header::new(alg);
    h.kid = kid.map(str::to_string);
    encode(&h, c, &EncodingKey::from_rsa_der(&der)).unwrap()
}

fn sign(c: &Value) -> String {
    sign_with(KEY_DER, Some("k1"), Algorithm::RS256, c)
}

fn expect() -> Expect<'static> {
    Expect {
        issuer: ISS,
        audience: AUD,
        nonce: "n-1",
    }
}

fn with(field: &str, v: Value) -> Value {
    let mut c = claims();
    c[field] = v;
    c
}

#[test]
fn a_good_token_gives_the_identity() {
    let id = check(&jwks(), &sign(&claims()), &expect()).unwrap();
    assert_eq!(id.subject, "abc");
    assert_eq!(id.issuer, ISS);
    assert_eq!(id.email.as_deref(), Some("ada@example.test"));
    assert!(id.email_verified);
    assert_eq!(id.given_name.as_deref(), Some("Ada"));
}

#[test]
fn email_verified_is_true_only_when_the_provider_says_so() {
    for (v, want) in [
        (json!(true), true),
        (json!("true"), true),
        (json!(false), false),
        (json!("false"), false),
        (Value::Null, false),
    ] {
        let id = check(
            &jwks(),
            &sign(&with("email_verified", v.clone())),
            &expect(),
        )
        .unwrap();
        assert_eq!(id.email_verified, want, "{v}");
    }
    // Microsoft Entra ID's claim for it.
    let mut c = with("email_verified", Value::Null);
    c["xms_edov"] = json!(true);
    assert!(check(&jwks(), &sign(&c), &expect()).unwrap().email_verified);
}

#[test]
fn another_issuer_is_refused() {
    let t = sign(&with("iss", json!("https://evil.example.test")));
    assert_eq!(check(&jwks(), &t, &expect()), Err(Refusal::Issuer));
}

#[test]
fn another_audience_is_refused() {
    let t = sign(&with("aud", json!("someone-else")));
    assert_eq!(check(&jwks(), &t, &expect()), Err(Refusal::Audience));
    // Several audiences: ours among them is not enough unless we are the authorised party.
    let t = sign(&with("aud", json!([AUD, "someone-else"])));
    assert_eq!(check(&jwks(), &t, &expect()), Err(Refusal::Audience));
    let mut c = with("aud", json!([AUD, "someone-else"]));
    c["azp"] = json!(AUD);
    assert!(check(&jwks(), &sign(&c), &expect()).is_ok());
}

#[test]
fn an_expired_token_is_refused_past_the_leeway() {
    let t = sign(&with("exp", json!(now() - LEEWAY_SECS as i64 - 2)));
    assert_eq!(check(&jwks(), &t, &expect()), Err(Refusal::Expired));
    let t = sign(&with("exp", json!(now() - 1)));
    assert!(check(&jwks(), &t, &expect()).is_ok(), "within the leeway");
}

#[test]
fn the_nonce_must_be_the_sign_ins() {
    let t = sign(&with("nonce", json!("n-2")));
    assert_eq!(check(&jwks(), &t, &expect()), Err(Refusal::Nonce));
    let mut c = claims();
    c.as_object_mut().unwrap().remove("nonce");
    assert_eq!(check(&jwks(), &sign(&c), &expect()), Err(Refusal::Nonce));
    let e = Expect {
        nonce: "",
        ..expect()
    };
    assert_eq!(check(&jwks(), &sign(&claims()), &e), Err(Refusal::Nonce));
}

#[test]
fn a_token_signed_by_another_key_is_refused() {
    let t = sign_with(OTHER_DER, Some("k1"), Algorithm::RS256, &claims());
    assert_eq!(check(&jwks(), &t, &expect()), Err(Refusal::Signature));
    let t = sign_with(KEY_DER, Some("k9"), Algorithm::RS256, &claims());
    assert_eq!(check(&jwks(), &t, &expect()), Err(Refusal::UnknownKey));
}

#[test]
fn a_token_without_kid_uses_the_only_key() {
    let t = sign_with(KEY_DER, None, Algorithm::RS256, &claims());
    assert!(check(&jwks(), &t, &expect()).is_ok());
}

#[test]
fn hmac_and_unsigned_tokens_are_refused() {
    let h = encode(
        &Header::new(Algorithm::HS256),
        &claims(),
        &EncodingKey::from_secret(AUD.as_bytes()),
    )
    .unwrap();
    assert_eq!(check(&jwks(), &h, &expect()), Err(Refusal::Algorithm));
    // alg "none": header and claims, empty signature.
    use base64::Engine;
    let b = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let none = format!(
        "{}.{}.",
        b.encode(br#"{"alg":"none","typ":"JWT"}"#),
        b.encode(claims().to_string())
    );
    assert!(check(&jwks(), &none, &expect()).is_err());
    assert_eq!(
        check(&jwks(), "not a token", &expect()),
        Err(Refusal::Malformed)
    );
}

#[test]
fn a_token_without_subject_is_refused() {
    let mut c = claims();
    c.as_object_mut().unwrap().remove("sub");
    assert!(matches!(
        check(&jwks(), &sign(&c), &expect()),
        Err(Refusal::MissingClaim(_) | Refusal::Malformed)
    ));
}
