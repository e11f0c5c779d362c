//! Facts: figures with the link to the cycles behind each, and findings (sentences that
//! cite figures by id, each with the lean method it points to). Plain data and
//! arithmetic; the modes ([`super::modes`]) fill it from the analytics calls' answers.

use gemba_shared::api::v1::assistant::AssistantFigure;

/// A period as the analytics calls answered it (unix ms, end excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start_ms: i64,
    pub end_ms: i64,
}

impl Period {
    /// The portal screens' `from` and `to` (days, both counted) covering the period.
    pub fn days(&self) -> (String, String) {
        let day = |ms: i64| {
            chrono::DateTime::from_timestamp_millis(ms)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default()
        };
        (
            day(self.start_ms),
            day((self.end_ms - 1).max(self.start_ms)),
        )
    }
}

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A figure in a sentence.
    Fact,
    /// What the facts point to doing.
    Advice,
    /// What cannot be said from the data.
    Note,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Fact => "fact",
            Kind::Advice => "advice",
            Kind::Note => "note",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub kind: Kind,
    pub text: String,
    /// The ids of the figures the text cites.
    pub figures: Vec<String>,
    pub method: Option<&'static str>,
}

/// The facts of one answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub figures: Vec<AssistantFigure>,
    pub findings: Vec<Finding>,
    /// Questions the facts raise (the follow-up suggestions).
    pub questions: Vec<String>,
}

/// A value as answers show it: whole numbers as they are, others to one decimal.
pub fn shown(v: f64) -> f64 {
    if v.fract() == 0.0 {
        v
    } else {
        (v * 10.0).round() / 10.0
    }
}

/// [`shown`] as text.
pub fn text(v: f64) -> String {
    let v = shown(v);
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

impl Facts {
    /// Adds a figure (its value as [`shown`]); answers its id.
    pub fn figure(
        &mut self,
        label: impl Into<String>,
        value: f64,
        unit: &str,
        link: String,
    ) -> String {
        let id = format!("F{}", self.figures.len() + 1);
        self.figures.push(AssistantFigure {
            id: id.clone(),
            label: label.into(),
            value: shown(value),
            unit: unit.to_string(),
            link,
        });
        id
    }

    /// The figure `id`'s value and unit as a sentence shows them, with its citation:
    /// `12.4 s [F3]`.
    pub fn cite(&self, id: &str) -> String {
        match self.figures.iter().find(|f| f.id == id) {
            Some(f) => {
                let unit = match f.unit.as_str() {
                    "%" => "%".to_string(),
                    // One cycle, device, event.
                    u @ ("cycles" | "devices" | "events") if f.value == 1.0 => {
                        format!(" {}", u.trim_end_matches('s'))
                    }
                    u => format!(" {u}"),
                };
                format!("{}{unit} [{id}]", text(f.value))
            }
            None => format!("[{id}]"),
        }
    }

    pub fn fact(&mut self, text: String, figures: Vec<String>, method: Option<&'static str>) {
        self.findings.push(Finding {
            kind: Kind::Fact,
            text,
            figures,
            method,
        });
    }

    pub fn advice(&mut self, text: String, figures: Vec<String>, method: &'static str) {
        self.findings.push(Finding {
            kind: Kind::Advice,
            text,
            figures,
            method: Some(method),
        });
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.findings.push(Finding {
            kind: Kind::Note,
            text: text.into(),
            figures: vec![],
            method: None,
        });
    }

    pub fn ask(&mut self, q: impl Into<String>) {
        let q = q.into();
        if !self.questions.contains(&q) {
            self.questions.push(q);
        }
    }
}

/// A portal path with a query of `pairs` (form-encoded; empty values left out).
pub fn link(path: &str, pairs: &[(&str, String)]) -> String {
    let mut u = reqwest::Url::parse("http://portal/").expect("a valid base");
    u.set_path(path);
    {
        let mut q = u.query_pairs_mut();
        for (k, v) in pairs.iter().filter(|(_, v)| !v.is_empty()) {
            q.append_pair(k, v);
        }
    }
    match u.query().filter(|q| !q.is_empty()) {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_string(),
    }
}

/// The lean methods the findings point to.
pub mod method {
    pub const STANDARD_WORK: &str = "Standard work";
    pub const LINE_BALANCING: &str = "Line balancing";
    pub const FIVE_WHYS: &str = "5 whys";
    pub const POKA_YOKE: &str = "Poka-yoke (error proofing)";
    pub const MOTION_STUDY: &str = "Motion study";
    pub const SMED: &str = "SMED (quick changeover)";
    pub const PDCA: &str = "PDCA (plan, do, check, act)";
    pub const TPM: &str = "TPM (total productive maintenance)";
    pub const ERGONOMICS: &str = "Ergonomic assessment";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_shown_whole_or_to_one_decimal() {
        assert_eq!(shown(12.0), 12.0);
        assert_eq!(shown(12.345), 12.3);
        assert_eq!(shown(12.35001), 12.4);
        assert_eq!(text(3.0), "3");
        assert_eq!(text(2.96), "3");
        assert_eq!(text(0.04), "0");
        assert_eq!(text(0.25), "0.3");
    }

    #[test]
    fn figures_are_numbered_and_cited_with_their_unit() {
        let mut f = Facts::default();
        let a = f.figure("Average", 12.44, "s", "/user/analytics".into());
        let b = f.figure("Bad share", 25.0, "%", "/user/trace".into());
        assert_eq!((a.as_str(), b.as_str()), ("F1", "F2"));
        assert_eq!(f.cite(&a), "12.4 s [F1]");
        assert_eq!(f.cite(&b), "25% [F2]");
        assert_eq!(f.figures[0].value, 12.4);
        let one = f.figure("Bad cycles", 1.0, "cycles", String::new());
        let two = f.figure("Bad cycles", 2.0, "cycles", String::new());
        assert_eq!(
            (f.cite(&one), f.cite(&two)),
            ("1 cycle [F3]".into(), "2 cycles [F4]".into())
        );
    }

    #[test]
    fn links_encode_their_values_and_leave_empty_ones_out() {
        assert_eq!(
            link(
                "/user/analytics",
                &[
                    ("from", "2026-10-13".into()),
                    ("task", String::new()),
                    ("q", "a b&c".into())
                ]
            ),
            "/user/analytics?from=2026-10-13&q=a+b%26c"
        );
        assert_eq!(link("/user/devices", &[]), "/user/devices");
    }

    #[test]
    fn a_periods_days_count_the_last_one() {
        // 2026-10-13T00:00Z to 2026-10-18T00:00Z: the 13th to the 17th.
        let p = Period {
            start_ms: 1_791_849_600_000,
            end_ms: 1_791_849_600_000 + 5 * 86_400_000,
        };
        assert_eq!(p.days(), ("2026-10-13".into(), "2026-10-17".into()));
    }

    #[test]
    fn a_question_is_asked_once() {
        let mut f = Facts::default();
        f.ask("Why?");
        f.ask("Why?");
        assert_eq!(f.questions, vec!["Why?"]);
    }
}
