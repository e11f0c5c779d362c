//! Outgoing e-mail and SMS.
//!
//! Every message is first recorded in the `outbox` table and written to
//! `{data}/outbox/` (e-mail as an RFC 5322 `.eml` file, SMS as `.sms.txt`), so
//! nothing is lost and the super admin can read it. When SMTP is configured, e-mail
//! is then delivered in the background and the row records the result. SMS goes
//! through [`SmsProvider`]; the default provider is the outbox itself.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Body, Mailbox};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::config::{Settings, SmtpSecurity};
use crate::db::{Db, outbox};

/// Sends an SMS. Implementations for real gateways plug in here.
pub trait SmsProvider: Send + Sync {
    /// Called after the message is in the outbox; returns an error text on failure.
    fn deliver(&self, to: &str, text: &str) -> Result<(), String>;
}

/// The default: the outbox is the delivery.
pub struct OutboxSms;

impl SmsProvider for OutboxSms {
    fn deliver(&self, _to: &str, _text: &str) -> Result<(), String> {
        Ok(())
    }
}

/// A plain-text body kept as written: 7bit (ASCII) or 8bit (UTF-8) while every line
/// fits SMTP's 998 octets. lettre alone would choose quoted-printable for any line
/// longer than 76 characters, which splits the links of our mails in the outbox's
/// `.eml` files. Longer lines get lettre's choice. (8bit needs the relay's 8BITMIME,
/// which lettre checks, recording a clear error on the outbox row.)
fn plain_body(text: &str) -> Body {
    let lines: Vec<&str> = text.lines().collect();
    if lines
        .iter()
        .any(|l| l.len() > 998 || l.contains(['\r', '\0']))
    {
        return Body::new(text.to_string());
    }
    let mut crlf = lines.join("\r\n");
    if text.ends_with('\n') {
        crlf.push_str("\r\n");
    }
    let encoding = if text.is_ascii() {
        ContentTransferEncoding::SevenBit
    } else {
        ContentTransferEncoding::EightBit
    };
    Body::dangerous_pre_encoded(crlf.into_bytes(), encoding)
}

#[derive(Clone)]
pub struct Mailer {
    db: Db,
    dir: PathBuf,
    from: Mailbox,
    smtp: Option<AsyncSmtpTransport<Tokio1Executor>>,
    sms: Arc<dyn SmsProvider>,
}

impl Mailer {
    pub fn new(db: Db, settings: &Settings) -> anyhow::Result<Mailer> {
        let dir = settings.data.join("outbox");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let from: Mailbox = settings
            .mail_from
            .parse()
            .context("mail_from is not an address")?;
        let smtp = match &settings.smtp {
            None => None,
            Some(s) => {
                let mut b = match s.security {
                    SmtpSecurity::None => {
                        AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&s.host)
                    }
                    SmtpSecurity::Starttls => {
                        AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&s.host)?
                    }
                    SmtpSecurity::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(&s.host)?,
                }
                .port(s.port);
                if let (Some(u), Some(p)) = (&s.username, &s.password) {
                    b = b.credentials(Credentials::new(u.clone(), p.0.clone()));
                }
                Some(b.build())
            }
        };
        Ok(Mailer {
            db,
            dir,
            from,
            smtp,
            sms: Arc::new(OutboxSms),
        })
    }

    /// Records an e-mail and, with SMTP configured, delivers it in the background.
    /// Returns the outbox id.
    pub async fn send(&self, to: &[String], subject: &str, body: &str) -> anyhow::Result<i64> {
        let mut builder = Message::builder().from(self.from.clone()).subject(subject);
        for addr in to {
            builder = builder.to(addr
                .parse()
                .with_context(|| format!("bad recipient {addr:?}"))?);
        }
        let message = builder
            .header(ContentType::TEXT_PLAIN)
            .body(plain_body(body))?;
        let id = outbox::insert(&self.db, "email", &to.join(", "), subject, body).await?;
        let file = format!("{id:06}.eml");
        tokio::fs::write(self.dir.join(&file), message.formatted()).await?;
        outbox::set_file(&self.db, id, &file).await?;
        if let Some(smtp) = self.smtp.clone() {
            let db = self.db.clone();
            tokio::spawn(async move {
                let result = smtp.send(message).await;
                let err = result.err().map(|e| e.to_string());
                if let Some(e) = &err {
                    tracing::warn!(outbox_id = id, error = %e, "smtp delivery failed");
                }
                if let Err(e) = outbox::set_delivery(&db, id, err.as_deref()).await {
                    tracing::error!(outbox_id = id, error = %e, "recording delivery");
                }
            });
        }
        Ok(id)
    }

    /// Records an SMS and hands it to the provider.
    pub async fn send_sms(&self, to: &str, text: &str) -> anyhow::Result<i64> {
        let id = outbox::insert(&self.db, "sms", to, "SMS", text).await?;
        let file = format!("{id:06}.sms.txt");
        tokio::fs::write(self.dir.join(&file), format!("To: {to}\n\n{text}\n")).await?;
        outbox::set_file(&self.db, id, &file).await?;
        let err = self.sms.deliver(to, text).err();
        outbox::set_delivery(&self.db, id, err.as_deref()).await?;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_stay_readable_unless_a_line_is_too_long_for_smtp() {
        let link = format!("http://localhost:8080/verify-email/{}", "x".repeat(60));
        let b = plain_body(&format!("Hello Jürgen,\n\n{link}\n"));
        assert_eq!(b.encoding(), ContentTransferEncoding::EightBit);
        let text = String::from_utf8(b.into_vec()).unwrap();
        assert_eq!(text, format!("Hello Jürgen,\r\n\r\n{link}\r\n"));
        assert_eq!(
            plain_body(&format!("Hello Alice,\n{link}")).encoding(),
            ContentTransferEncoding::SevenBit
        );
        assert_eq!(
            plain_body(&"y".repeat(1200)).encoding(),
            ContentTransferEncoding::QuotedPrintable
        );
    }
}
