//! Analytics benchmark (issue 7): 1,000,000 cycles over a year on 20 stations, stored
//! as ingestion stores them (in batches, roll-ups kept in the same transactions); then
//! `GET telemetry/cycle_stats` for a month of one station and for a year of all
//! stations, timed through HTTP, beside the same figures from the raw cycles alone (no
//! roll-ups) in the same run. The two must agree. Then the other analytics calls through
//! HTTP for the same ranges: the issue center, the slowest 5%, a page of cycles, a line
//! of every station, the metadata keys.
//!
//! Run by `bench/analytics.sh`:
//! `cargo run --release -p gemba-cloud --example analytics_bench -- [sqlite|postgres] [CYCLES] [STATIONS]`

use std::time::Instant;

use gemba_cloud::config::{Kdf, Settings};
use gemba_cloud::db::analytics::{self, StatsQuery, Width};
use gemba_cloud::db::cycles::{Received, insert_cycles};
use gemba_shared::cycle::{BadReason, Cycle, Segment};
use gemba_shared::mqtt::v1::CycleMessage;

const DAY: i64 = 86_400_000;
/// 2025-11-01T00:00:00Z: the year of cycles starts here.
const YEAR_START: i64 = 1_761_955_200_000;
const ADMIN: (&str, &str) = ("admin@bench.test", "Bench-pass-1");
const ANALYST: (&str, &str) = ("analyst@bench.test", "Bench-pass-2");

/// A small deterministic generator (xorshift64*), so every run stores the same cycles.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: i64) -> i64 {
        (self.next() % n as u64) as i64
    }
}

/// Station `s`'s cycles: `per_day` a day for 365 days, in two shifts from 06:00, each
/// of four steps of 8–22 s with background between; about one in twelve misses a step.
fn station_cycles(rng: &mut Rng, task: i64, per_day: i64) -> Vec<CycleMessage> {
    let mut out = Vec::new();
    for day in 0..365 {
        let mut t = YEAR_START + day * DAY + 6 * 3_600_000 + rng.below(600_000);
        for _ in 0..per_day {
            let start = t;
            let mut segments = Vec::new();
            let mut idle = 0;
            let missed = (rng.below(12) == 0).then(|| rng.below(4) as u32);
            for step in 0..4u32 {
                let gap = rng.below(3_000);
                idle += gap;
                t += gap;
                let len = 8_000 + rng.below(14_000);
                if Some(step) != missed {
                    segments.push(Segment::new(step, t, t + len));
                    t += len;
                }
            }
            let c = Cycle {
                start_ms: start,
                end_ms: t,
                segments,
                idle_ms: idle,
                good: missed.is_none(),
                reasons: missed
                    .map(|step| vec![BadReason::MissedStep { step }])
                    .unwrap_or_default(),
            };
            out.push(CycleMessage::new(
                uuid::Uuid::from_u128(u128::from(rng.next()) << 64 | u128::from(rng.next()))
                    .to_string(),
                task,
                "cam0".into(),
                c,
            ));
            // Between cycles: a short pause, now and then a longer one.
            let longest = if rng.below(20) == 0 {
                1_800_000
            } else {
                60_000
            };
            t += 2_000 + rng.below(longest);
        }
    }
    out
}

/// A measured call: its name, one station or all, the range, the trend's buckets.
type Case = (&'static str, Option<i64>, i64, i64, Width, &'static str);

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1]
}

/// `ms` as RFC 3339 (UTC), as the calls take a time.
fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `GET url` as the analyst of `org`: its JSON answer, or why not.
async fn get(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    org: i64,
) -> anyhow::Result<serde_json::Value> {
    let r = client
        .get(url)
        .bearer_auth(token)
        .header("Organization", org.to_string())
        .send()
        .await?;
    anyhow::ensure!(
        r.status().is_success(),
        "{url}: {}: {}",
        r.status(),
        r.text().await?
    );
    Ok(r.json().await?)
}

/// p50 and p95 (ms) of `runs` calls of `f`, after one unmeasured call.
async fn timed<F, Fut, T>(runs: usize, mut f: F) -> anyhow::Result<(f64, f64, T)>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let mut last = f().await?;
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t0 = Instant::now();
        last = f().await?;
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    Ok((percentile(&mut ms, 0.5), percentile(&mut ms, 0.95), last))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let backend = args.get(1).map_or("sqlite", String::as_str).to_string();
    let cycles: i64 = args.get(2).map_or(Ok(1_000_000), |s| s.parse())?;
    let stations: i64 = args.get(3).map_or(Ok(20), |s| s.parse())?;
    let per_day = ((cycles / stations + 364) / 365).max(1);

    let dir = tempfile::tempdir()?;
    let pg_admin = std::env::var("GEMBA_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let database_url = match backend.as_str() {
        "postgres" => Some(gemba_cloud::seed::create_database(&pg_admin, "gemba_analytics").await?),
        _ => None,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let http = listener.local_addr()?;
    let settings = Settings {
        data: dir.path().join("data"),
        http,
        mqtt: format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair()),
        database_url: database_url.clone(),
        kdf: Kdf {
            memory_kib: 4096,
            iterations: 1,
            parallelism: 1,
        },
        ..Settings::default()
    };
    let state = gemba_cloud::build_state(settings).await?;
    let admin = gemba_cloud::create_admin(&state, ADMIN.0, ADMIN.1).await?;
    let (org, task) = gemba_cloud::seed::organization_with_task(
        &state,
        "bench",
        "Assemble\nA:\na;\nB:\nb;\nC:\nc;\nD:\nd;\n",
        admin,
    )
    .await?;
    let mut devices = Vec::new();
    for s in 0..stations {
        devices.push(
            gemba_cloud::seed::device_with_code(
                &state,
                org,
                &format!("Station {s}"),
                &format!("STATION{s:05}"),
            )
            .await?,
        );
    }

    // Stored as ingestion stores them: batches of 1,000, roll-ups in the same
    // transactions. Interleaved by station so each batch holds several.
    let t0 = Instant::now();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut all: Vec<Vec<CycleMessage>> = devices
        .iter()
        .map(|_| station_cycles(&mut rng, task, per_day))
        .collect();
    let total: usize = all.iter().map(Vec::len).sum();
    eprintln!(
        "{backend}: {total} cycles made in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    let t0 = Instant::now();
    let mut batch = Vec::with_capacity(1000);
    let mut stored = 0;
    while all.iter().any(|v| !v.is_empty()) {
        for (s, v) in all.iter_mut().enumerate() {
            let take = v.len().min(50);
            for cycle in v.drain(..take) {
                batch.push(Received {
                    org,
                    device: devices[s],
                    cycle,
                });
            }
        }
        if batch.len() >= 1000 || all.iter().all(Vec::is_empty) {
            insert_cycles(&state.db, &batch).await?;
            stored += batch.len();
            batch.clear();
            if stored % 100_000 < 1000 {
                eprintln!("{backend}: {stored} of {total} stored");
            }
        }
    }
    let load_s = t0.elapsed().as_secs_f64();
    sqlx::query("ANALYZE").execute(&state.db.pool).await?;

    let s2 = state.clone();
    tokio::spawn(async move {
        gemba_cloud::launch(s2, listener, std::future::pending())
            .await
            .unwrap()
    });
    let client = reqwest::Client::new();
    let base = format!("http://{http}/api/");
    // An analyst of the organisation who signs in without a one-time code.
    let hash = state.passwords.hash(ANALYST.1.into()).await?;
    let analyst = gemba_cloud::db::users::insert(
        &state.db,
        &gemba_cloud::db::users::NewUser {
            email: ANALYST.0,
            name: "Ana",
            lastname: "Lyst",
            password_hash: &hash,
            role: Some(gemba_shared::Role::AnalyticsUser),
            is_active: true,
            is_email_verified: true,
            is_approved: true,
            require_otp: false,
        },
    )
    .await?;
    gemba_cloud::db::users::link(&state.db, analyst, org).await?;
    let login: serde_json::Value = client
        .post(format!("{base}account/login_v2"))
        .json(&serde_json::json!({"email": ANALYST.0, "password": ANALYST.1}))
        .send()
        .await?
        .json()
        .await?;
    let token = login["token"].as_str().unwrap_or_default().to_string();
    anyhow::ensure!(
        login["require_otp"] == false,
        "the analyst's sign-in: {login}"
    );

    // A month of one station (September 2026, whole days, then cut mid-hour as "the
    // last 30 days" is), and a year of all stations by week and by day.
    let month = (YEAR_START + 304 * DAY, YEAR_START + 334 * DAY);
    let cases: Vec<Case> = vec![
        (
            "month, one station",
            Some(devices[0]),
            month.0,
            month.1,
            Width::Day,
            "day",
        ),
        (
            "month, one station, cut mid-hour",
            Some(devices[0]),
            month.0 + 9 * 3_600_000 + 1_234_567,
            month.1 + 14 * 3_600_000 + 2_345_678,
            Width::Day,
            "day",
        ),
        (
            "year, all stations, by week",
            None,
            YEAR_START,
            YEAR_START + 365 * DAY,
            Width::Week,
            "week",
        ),
        (
            "year, all stations, by day",
            None,
            YEAR_START,
            YEAR_START + 365 * DAY,
            Width::Day,
            "day",
        ),
    ];
    println!(
        "{backend}: {total} cycles, {stations} stations, stored in {load_s:.1} s ({:.0} cycles/s with roll-ups)",
        total as f64 / load_s
    );
    for (name, device, start, end, width, bucket) in cases {
        let q = StatsQuery {
            task: Some(task),
            device,
            good: None,
            start,
            end,
            width,
            offset_ms: 0,
        };
        let url = format!(
            "{base}telemetry/cycle_stats?task={task}&datetime_start={}&datetime_end={}&bucket={bucket}{}",
            iso(start),
            iso(end),
            device.map(|d| format!("&device={d}")).unwrap_or_default()
        );
        let (h50, h95, answer) = timed(40, || get(&client, &url, &token, org)).await?;
        let (r50, r95, rolled) = timed(40, || async {
            Ok(analytics::stats(&state.db, org, &q).await?)
        })
        .await?;
        let raw_runs = if device.is_some() { 10 } else { 3 };
        let (w50, w95, raw) = timed(raw_runs, || async {
            Ok(analytics::stats_from(&state.db, org, &q, &[]).await?)
        })
        .await?;
        // The two agree: counts, sums, extremes.
        let sum = |s: &analytics::Stats| {
            s.stations.values().fold((0, 0, i64::MAX, 0), |a, x| {
                (
                    a.0 + x.n,
                    a.1 + x.sum_ms,
                    a.2.min(x.min_ms),
                    a.3.max(x.max_ms),
                )
            })
        };
        anyhow::ensure!(
            sum(&rolled) == sum(&raw),
            "{name}: roll-ups and raw cycles disagree"
        );
        anyhow::ensure!(rolled.bins == raw.bins, "{name}: distributions disagree");
        println!(
            "{backend} | {name} | {} cycles | HTTP p50 {h50:.1} / p95 {h95:.1} ms | roll-ups p50 {r50:.1} / p95 {r95:.1} ms | raw cycles p50 {w50:.0} / p95 {w95:.0} ms | {:.0}× faster at p95",
            answer["total"]["cycles"],
            w95 / r95
        );
    }
    // The other analytics calls through HTTP, for the same month of one station and
    // year of all stations: the issue center (raw bad cycles), the slowest 5% and a page
    // of cycles (raw cycles, indexed), a line of every station (roll-ups per station),
    // the metadata keys (every cycle of the organisation).
    let line = gemba_cloud::db::lines::create(
        &state.db,
        org,
        "Bench line",
        Some(60_000),
        &devices
            .iter()
            .map(|&device| gemba_shared::api::v1::line::Station { task, device })
            .collect::<Vec<_>>(),
    )
    .await?;
    let one = format!(
        "task={task}&device={}&datetime_start={}&datetime_end={}",
        devices[0],
        iso(month.0),
        iso(month.1)
    );
    let all = format!(
        "task={task}&datetime_start={}&datetime_end={}",
        iso(YEAR_START),
        iso(YEAR_START + 365 * DAY)
    );
    let line_month = format!(
        "line={line}&datetime_start={}&datetime_end={}",
        iso(month.0),
        iso(month.1)
    );
    let line_year = format!(
        "line={line}&datetime_start={}&datetime_end={}",
        iso(YEAR_START),
        iso(YEAR_START + 365 * DAY)
    );
    let calls = [
        (
            "issues",
            "month, one station",
            format!("telemetry/issues?{one}"),
        ),
        (
            "issues",
            "year, all stations",
            format!("telemetry/issues?{all}&bucket=week"),
        ),
        (
            "top_five_percentile",
            "month, one station",
            format!("telemetry/top_five_percentile?{one}"),
        ),
        (
            "top_five_percentile",
            "year, all stations",
            format!("telemetry/top_five_percentile?{all}"),
        ),
        (
            "fetch_cycles/v2",
            "month, one station",
            format!("telemetry/fetch_cycles/v2?{one}"),
        ),
        (
            "fetch_cycles/v2",
            "year, all stations",
            format!("telemetry/fetch_cycles/v2?{all}"),
        ),
        (
            "line_stats",
            "month, the line's 20 stations",
            format!("telemetry/line_stats?{line_month}"),
        ),
        (
            "line_stats",
            "year, the line's 20 stations",
            format!("telemetry/line_stats?{line_year}"),
        ),
        (
            "unique_metadata_keys",
            "every cycle",
            "telemetry/unique_metadata_keys/".to_string(),
        ),
    ];
    for (call, what, path) in calls {
        let url = format!("{base}{path}");
        let (h50, h95, _) = timed(20, || get(&client, &url, &token, org)).await?;
        println!("{backend} | {call} | {what} | HTTP p50 {h50:.1} / p95 {h95:.1} ms");
    }
    if let Some(url) = database_url {
        state.db.pool.close().await;
        gemba_cloud::seed::drop_database(&pg_admin, &url).await?;
    }
    Ok(())
}
