//! The privacy policy the portal shows at `/privacy-policy` (`GET /api/privacy_policy/`):
//! the operator's own text when `privacy_policy` names a file (Markdown or plain text),
//! else [`default_policy`], which says what this deployment stores, where, for how
//! long (from its settings) and who sees it. The operator's contact
//! (`privacy_contact`) goes with either.
//!
//! The default text must stay true to the code: each retention it states is a setting
//! or constant that a sweep enforces (`clip_days`, `screenshot_days`,
//! `db::tombstones::KEEP_DAYS`, the token lifetimes); what no sweep removes is said to
//! be kept until deleted.

use std::path::Path;

use crate::config::Settings;

/// Largest policy file served, in bytes.
pub const MAX_POLICY_BYTES: u64 = 256 * 1024;

fn days(n: i64) -> String {
    if n == 1 {
        "1 day".into()
    } else {
        format!("{n} days")
    }
}

fn duration(secs: u64) -> String {
    match secs {
        s if s % 86_400 == 0 => days((s / 86_400) as i64),
        s if s % 3600 == 0 => format!("{} hours", s / 3600),
        s if s % 60 == 0 => format!("{} minutes", s / 60),
        s => format!("{s} seconds"),
    }
}

/// The policy of a deployment without its own text, in Markdown (headings, paragraphs,
/// lists; no HTML).
pub fn default_policy(s: &Settings) -> String {
    let clips = if s.clip_days > 0 {
        format!(
            "Short video clips of single work cycles are kept for {} and then deleted.",
            days(s.clip_days)
        )
    } else {
        "No video clips of work cycles are collected on this server.".into()
    };
    let screenshots = if s.screenshot_days > 0 {
        format!(
            "Camera screenshots are kept for {} and then deleted.",
            days(s.screenshot_days)
        )
    } else {
        "Camera screenshots are kept until their device is deleted.".into()
    };
    let url = s.public_url();
    format!(
        "# Privacy Policy\n\
\n\
This policy describes what this gemba server ({url}) stores about the people who use it \
and the people its cameras see, where it keeps it, for how long, and who can see it.\n\
\n\
## Who runs this server\n\
\n\
gemba is software that an organisation runs on its own servers. This server is run by its \
operator, who decides what it is used for and is responsible for the data on it. The data \
below is kept on this deployment's own servers (its database and its file storage) and on \
the camera devices enrolled in it; it is not sent to the makers of gemba or to anyone else.\n\
\n\
## What is stored\n\
\n\
- **Accounts:** your name, e-mail address, role, the organisations you belong to, an \
optional mobile number for sign-in codes, and your password as a one-way hash (never the \
password itself). Secrets for authenticator apps are kept encrypted.\n\
- **Sign-in records:** your sign-in sessions, one-time codes (as hashes), failed sign-in \
attempts (to slow down password guessing), when you were active in the portal, and for \
administrators a log of the changes they made with the network address they made them from.\n\
- **Messages:** the e-mails and text messages this server sent you (sign-in codes, links, \
notifications).\n\
- **Video and images from cameras:** cameras at workstations send their pictures to a \
device next to them, which recognises the steps of the work. Live video is shown to \
signed-in users while they watch it and is not recorded. Videos are recorded only when a \
user of the organisation starts a recording (to train a model) or uploads one; \
screenshots are taken to check a camera's view; short clips of single work cycles may be \
kept to review them. Camera views can have regions blurred on the device before anything \
leaves it.\n\
- **Work cycles:** for each cycle at a workstation, when it started and ended, its steps \
and their times, the result and any comments or changes people made to it.\n\
- **Devices:** the camera devices' names, settings, health and what they reported.\n\
\n\
## How long it is kept\n\
\n\
- {clips}\n\
- {screenshots}\n\
- A sign-in lasts at most {refresh}; a code or link sent by e-mail works only for a short \
time.\n\
- Records of deleted cycles are kept for {tombstones} so that devices do not send them \
again, then removed.\n\
- Accounts, recorded videos, work cycles and the administrators' change log are kept until \
someone with the right role deletes them or the organisation is deleted.\n\
\n\
## Who can see it\n\
\n\
Each organisation's data is visible only to that organisation's users, each according to \
their role, and to the operator's super administrators. Labelers see only the videos \
they have been asked to label. Integrations that the super administrators allow see one \
organisation's data with one role.\n\
\n\
## Your choices\n\
\n\
You can see and change your profile in the portal. To ask for a copy of what is stored \
about you, or for your account, recordings or other data to be corrected or deleted, ask \
your organisation's administrator or the operator of this server.\n",
        refresh = duration(s.refresh_token_ttl_secs),
        tombstones = days(crate::db::tombstones::KEEP_DAYS),
    )
}

/// The operator's text from `path`, at most [`MAX_POLICY_BYTES`] of UTF-8.
pub async fn operator_policy(path: &Path) -> anyhow::Result<String> {
    use anyhow::Context;
    let len = tokio::fs::metadata(path)
        .await
        .with_context(|| format!("reading {}", path.display()))?
        .len();
    anyhow::ensure!(
        len <= MAX_POLICY_BYTES,
        "{} is over {MAX_POLICY_BYTES} bytes",
        path.display()
    );
    tokio::fs::read_to_string(path)
        .await
        .with_context(|| format!("reading {} (UTF-8 text)", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_policy_states_the_deployments_retention() {
        let s = Settings {
            clip_days: 7,
            screenshot_days: 0,
            refresh_token_ttl_secs: 14 * 86_400,
            ..Settings::default()
        };
        let p = default_policy(&s);
        assert!(p.contains("kept for 7 days and then deleted"), "{p}");
        assert!(p.contains("screenshots are kept until their device is deleted"));
        assert!(p.contains("at most 14 days"));
        assert!(p.contains("for 400 days"));
        let none = default_policy(&Settings {
            clip_days: 0,
            ..Settings::default()
        });
        assert!(none.contains("No video clips of work cycles are collected"));
        assert!(!p.contains('<'), "no HTML in the default policy");
    }

    #[test]
    fn durations_read_in_the_largest_whole_unit() {
        assert_eq!(duration(86_400), "1 day");
        assert_eq!(duration(7200), "2 hours");
        assert_eq!(duration(900), "15 minutes");
        assert_eq!(duration(61), "61 seconds");
    }
}
