//! Identity flows end to end, each with its bad input: the authenticator app and SMS
//! as second factors, changing a method, code limits, passwords (forgot, reset,
//! change, set by an admin: 303), change of e-mail, terms, deleting accounts,
//! activity sessions, token and session checks, the admin sign-in and single
//! sign-on, organisation sub-domains, the user lists, and the command line.
//!
//! One file per flow: second factors ([`authenticator`], [`sms`], [`methods`]),
//! [`passwords`], the [`account`]'s own changes, [`sessions`], the [`admin_sign_in`],
//! [`sub_domains`], the [`user_lists`] and the command line ([`cli`]). The messages
//! and helpers more than one of them uses are here.

mod account;
mod admin_sign_in;
mod authenticator;
mod cli;
mod methods;
mod passwords;
mod sessions;
mod sms;
mod sub_domains;
mod user_lists;

use gemba_shared::api::v1::account::OtpRequest;
use reqwest::{Method, StatusCode};

use crate::common::*;

pub(super) const OTP_INVALID: &str = "Invalid or expired OTP.";
pub(super) const OTP_FORMAT: &str = "Please enter the 6-digit OTP";
pub(super) const METHOD_EXISTS: &str =
    "A verification method is already set up. Sign in fully to change it.";
pub(super) const TOO_MANY_ATTEMPTS: &str = "Too many attempts.Please try after 1 min.";
pub(super) const MUST_CHANGE: &str = "Your password must be changed before you continue.";

/// The body carrying a one-time `code`.
pub(super) fn otp(code: &str) -> OtpRequest {
    OtpRequest { otp: code.into() }
}

/// A six-digit code that is not `code`.
pub(super) fn other_code(code: &str) -> String {
    format!("{:06}", (code.parse::<u32>().unwrap() + 1) % 1_000_000)
}

/// Fetches the QR code with `token`; asserts it is a PNG and answers its bytes.
pub(super) async fn qr_png(app: &TestApp, token: &str) -> Vec<u8> {
    let r = app
        .raw(Method::PATCH, "account/get_qr_code/", Some(token), &[])
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(r.headers()["cache-control"], "no-store");
    let png = r.bytes().await.unwrap().to_vec();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 100,
        "not a PNG"
    );
    png
}
