//! Writes the TypeScript types of the wire types (`api::v1`, the operation model, and
//! [`Role`]) to `web/src/api/generated/`, one file per type plus an `index.ts`, so the
//! portal never writes them twice. Run with
//! `cargo test -p gemba-shared --features ts --test export_bindings`;
//! `scripts/test` runs it and fails when the committed files differ
//! (`git diff --exit-code web/src/api/generated`).
//!
//! Integers are `number` (ids and unix-millisecond times stay far below 2^53).
#![cfg(feature = "ts")]

use std::path::PathBuf;

use gemba_shared::api::v1::{
    Msg, Page, account as a, admin_report as ar, barcode as bc, cameras as c, device as d,
    feature_control as f, labeler as lb, line as ln, organization as o, release as r, stream as s,
    task as t, telemetry as tm, training as tr, video as v,
};
use gemba_shared::operation as op;
use gemba_shared::{Permission, Role, validate};
use ts_rs::{Config, TS};

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/src/api/generated")
}

/// Exports `$t` and everything it refers to; collects the names for `index.ts`.
macro_rules! export {
    ($cfg:expr, $names:expr, $($t:ty),+ $(,)?) => {
        $(
            <$t>::export_all($cfg).expect(concat!("exporting ", stringify!($t)));
            $names.push(<$t>::ident($cfg));
        )+
    };
}

#[test]
fn export_bindings() {
    let dir = out_dir();
    // Start from nothing, so a type that was removed or renamed leaves no stale file.
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let cfg = Config::new().with_large_int("number").with_out_dir(&dir);
    let mut names: Vec<String> = Vec::new();
    export!(&cfg, names, Role, Msg, Page<Msg>);
    export!(
        &cfg,
        names,
        a::LoginRequest,
        a::OrgRef,
        a::LoginUser,
        a::PendingApproval,
        a::RegisterRequest,
        a::EmailRequest,
        a::OtpRequest,
        a::SmsMethodRequest,
        a::RefreshRequest,
        a::TokenPair,
        a::ResetPasswordRequest,
        a::ChangePasswordRequest,
        a::WorkstationPasswordRequest,
        a::ChangeEmailRequest,
        a::TokenRequest,
        a::TermsRequest,
        a::SessionCreate,
        a::SessionEnd,
        a::ApproveUser,
        a::AssignUserOrg,
        a::EmailVerifiedFlag,
        a::RoleCreate,
        a::UserSummary,
        a::LinkedUser,
        a::LinkedUserRef,
        a::RoleRecord,
        a::ActivitySession,
        a::LoginAttempts,
    );
    export!(
        &cfg,
        names,
        f::Feature,
        f::FeatureCreate,
        f::SubscribedFeature,
        f::SubscribedFeatureCreate,
        f::EventNotification,
        bc::Barcode,
        bc::BarcodeTask,
        bc::BarcodeCreate,
        bc::BarcodeValuePatch,
        bc::AssociatedBarcode,
        bc::AssociateBarcode,
        bc::AssociateBarcodePatch,
        gemba_shared::api::v1::annotation::AnnotationImage,
        gemba_shared::api::v1::annotation::AnnotationObject,
        gemba_shared::api::v1::annotation::AnnotationImageCreate,
        gemba_shared::api::v1::annotation::AnnotationObjectWrite,
        gemba_shared::api::v1::annotation::AnnotationObjectsPut,
        gemba_shared::api::v1::annotation::AnnotationObjectsDelete,
        gemba_shared::api::v1::annotation::AnnotationBulkDelete,
        gemba_shared::api::v1::annotation::AnnotationTask,
        gemba_shared::api::v1::annotation::RevertObjectList,
        gemba_shared::api::v1::annotation::AnnotationIdsQuery,
        gemba_shared::api::v1::annotation::AnnotationIds,
        gemba_shared::api::v1::annotation::Is3d,
        gemba_shared::api::v1::rectification::RectificationStep,
        gemba_shared::api::v1::rectification::RectificationStepCreate,
        gemba_shared::api::v1::virtual_task::VirtualTask,
        gemba_shared::api::v1::task_objects_store::StoredObject,
        gemba_shared::api::v1::video_metadata::ExtractVideoMetadata,
        gemba_shared::api::v1::video_metadata::VideoMetadata,
        gemba_shared::api::v1::queue::QueueMessageCreate,
        gemba_shared::api::v1::queue::QueueMessage,
        gemba_shared::api::v1::push::PushKeys,
        gemba_shared::api::v1::push::PushToken,
        gemba_shared::api::v1::push::TopicSubscription,
        gemba_shared::api::v1::push::PushSubscription,
        gemba_shared::api::v1::push::TopicSubscriptionResult,
        gemba_shared::api::v1::push::VapidPublicKey,
        gemba_shared::api::v1::push::PushMessage,
        gemba_shared::api::v1::monitoring::MonitoringStatus,
        gemba_shared::api::v1::monitoring::MonitoredDevice,
        gemba_shared::api::v1::monitoring::DeviceMonitoring,
        gemba_shared::api::v1::monitoring::DeviceHealth,
        f::EventNotificationCreate,
        f::EventNotificationPatch,
        f::SendEmail,
        f::SendEmailResult,
    );
    export!(
        &cfg,
        names,
        o::Organization,
        o::AuditEntry,
        o::OrganizationCreate,
        o::OrganizationPatch,
        o::DepartmentCreate,
        o::Department,
        o::OrganizationLink,
        o::LinkOrganization,
        o::SwitchOrganization,
        o::SwitchResult,
        o::OrganizationSwitch,
    );
    export!(&cfg, names, op::Operation, op::Process, op::Step);
    export!(
        &cfg,
        names,
        t::TrainStatus,
        t::TelemetryParams,
        t::TrainingParams,
        t::TaskParameters,
        t::TaskSettings,
        t::TaskOrganization,
        t::TaskJson,
        t::Task,
        t::TaskCreate,
        t::TaskPatch,
        t::CloneTask,
        t::TaskFromDocument,
        t::StopTraining,
        t::TaskHistoryEntry,
        t::RevertTask,
        t::RevertResult,
        t::LastUpdate,
        t::ModelChoice,
        Page<t::Task>,
        t::TaskObject,
        t::TaskObjectCreate,
        t::TaskObjectPatch,
        t::PlaneObject,
        t::PlaneObjectWrite,
        t::StepRelation,
        t::StepRelations,
        t::StepRule,
        t::DetectionRule,
        t::DetectionRuleWrite,
        t::BulkDelete,
        t::RegionJson,
    );
    export!(
        &cfg,
        names,
        d::DeviceTask,
        d::Device,
        d::DeviceDetails,
        d::AdminDevice,
        d::DeviceEvent,
        gemba_shared::api::v1::tampering::TamperingRequest,
        gemba_shared::api::v1::tampering::TamperingReview,
        d::DeviceCreate,
        d::EnrolmentCode,
        d::DevicePatch,
        d::Archive,
        d::UpdateChannel,
        d::FetchAnalytics,
        d::EnrolRequest,
        d::Credentials,
        d::StartTask,
        d::StopTask,
        d::DeviceCommand,
        d::DeviceSettings,
        d::DeviceTaskUpsert,
        d::DeviceStatus,
        d::DeviceStats,
        d::TaskInferenceStatus,
        d::DeviceTaskAssociation,
        Page<d::Device>,
        c::CameraDevice,
        c::RemoteCam,
        c::RemoteCamCreate,
        c::RemoteCamPatch,
        c::Rect,
        c::DeviceBlurRegion,
        c::BlurRegionsWrite,
        c::DeviceSchedule,
        c::ScheduleCreate,
        c::SchedulePatch,
        c::ScreenshotKind,
        c::Screenshot,
    );
    export!(
        &cfg,
        names,
        s::ClientEvent,
        s::StreamDevices,
        s::ServerEvent,
        s::DeviceStatusEvent,
        s::StreamError,
        s::OpcuaAsk,
        s::OpcuaEvent,
        gemba_shared::api::v1::opcua::OpcuaRoleName,
        gemba_shared::api::v1::opcua::OpcuaBindingCreate,
        gemba_shared::api::v1::opcua::OpcuaBindingRecord,
    );
    export!(
        &cfg,
        names,
        v::Video,
        v::VideoStatus,
        v::VideoCreate,
        v::RecordRequest,
        v::VideoLabels,
        v::LabelsPut,
        v::LabelState,
        v::TaskVideos,
        v::AnnotationsCheck,
        v::OrgTag,
        v::TaskTag,
        v::OrgTagCreate,
        v::VideoPatch,
        v::Comment,
        v::CommentCreate,
        v::TimeTag,
        v::TimeTagCreate,
        Page<v::Video>,
        tm::CycleFigures,
        tm::StationFigures,
        tm::StepFigures,
        tm::TimeBin,
        tm::TrendPoint,
        tm::CycleStats,
        tm::TopCycles,
        tm::CycleVerdict,
        tm::CycleChange,
        tm::CycleDetails,
        tm::CycleClip,
        tm::Trace,
        tm::ArchiveCycles,
        tm::Archived,
        tm::ArchivedCycle,
        tm::Issue,
        tm::IssueCenter,
        tm::ReviewIssue,
        tm::Reviewed,
        ln::Station,
        ln::LineBody,
        ln::LineStation,
        ln::Line,
        ln::LineStationFigures,
        ln::LineStats,
        ln::TracedStation,
        ln::LineTrace,
        tr::RunStatus,
        tr::TrainingRun,
        tr::Metrics,
        tr::LabelScore,
        tr::ModelVersion,
        tr::TrainedTask,
        tr::TrainedTaskPatch,
        tr::ModelVersionPatch,
        tr::DeployRequest,
        tr::DeploymentStatus,
        tr::Deployment,
        tr::ModelType,
        tr::ModelFile,
        tr::ModelTypeCreate,
        tr::ModelTypePatch,
        tr::ModelFilesPatch,
        tr::ModelVersionCreate,
        gemba_shared::api::v1::validation::ValidationGroup,
        gemba_shared::api::v1::validation::ValidationGroupCreate,
        gemba_shared::api::v1::validation::ValidationVideo,
        gemba_shared::api::v1::validation::ValidationVideoPatch,
        gemba_shared::api::v1::validation::AddVideosToGroup,
        gemba_shared::api::v1::validation::RecordsFromTrace,
        gemba_shared::api::v1::validation::RecordLabels,
        gemba_shared::api::v1::validation::ValidationRunCreate,
        gemba_shared::api::v1::validation::ValidationStatus,
        gemba_shared::api::v1::validation::ValidationRunSummary,
        gemba_shared::api::v1::validation::ValidationRun,
        gemba_shared::api::v1::validation::ValidationReport,
        gemba_shared::api::v1::validation::VideoEval,
        gemba_shared::api::v1::validation::ValidationRunVideo,
        lb::LabelRequest,
        lb::LabelRequestCreate,
        lb::RequestedTask,
        ar::UserReport,
        ar::UserReportRow,
        ar::AdminLabeler,
        ar::LabelerAssignment,
        ar::AnnotationProgress,
        r::Release,
        r::ReleaseDevice,
        r::ReleaseDeployment,
        r::MoveRelease,
        r::ReleasePatch,
        r::LatestBranch,
        r::Instance,
    );
    {
        use gemba_shared::api::v1::service_token as st;
        export!(
            &cfg,
            names,
            st::ServiceTokenCreate,
            st::ServiceToken,
            st::ServiceTokenCreated
        );
        export!(&cfg, names, gemba_shared::api::v1::privacy::PrivacyPolicy);
        use gemba_shared::api::v1::assistant as ka;
        export!(
            &cfg,
            names,
            ka::AssistantAsk,
            ka::AssistantAnswer,
            ka::AssistantDocument
        );
    }
    // Every file written, listed once: the types above and what they refer to
    // (`serde_json/JsonValue.ts` for JSON objects).
    let mut files = ts_files(&dir, "");
    files.sort();
    for n in &names {
        assert!(files.contains(n), "{n}.ts was not written");
    }
    std::fs::write(dir.join("permissions.ts"), permissions_ts()).unwrap();
    files.push("permissions".into());
    std::fs::write(dir.join("field-limits.ts"), field_limits_ts()).unwrap();
    files.push("field-limits".into());
    let mut index = String::from(
        "// Generated by shared/tests/export_bindings.rs from the Rust wire types. Do not edit.\n",
    );
    for f in &files {
        let kind = if f == "permissions" || f == "field-limits" {
            ""
        } else {
            " type"
        };
        index.push_str(&format!("export{kind} * from './{f}';\n"));
    }
    std::fs::write(dir.join("index.ts"), index).unwrap();
    std::fs::write(dir.join("validation-cases.json"), validation_cases()).unwrap();
    std::fs::write(dir.join("operation-cases.json"), operation_cases()).unwrap();
}

/// The operation text format and save rules on a corpus, from `shared/src/operation.rs`:
/// for each text what [`op::parse`] reads (or the line it refuses), what [`op::print`]
/// writes of it and what [`op::validate`] answers; for each operation (an editor's state,
/// which text cannot always carry) what [`op::validate`] answers. The portal's copy
/// (`web/src/lib/operation.ts`) must answer the same (`operation.shared.test.ts`). The
/// random part comes from a fixed seed, so the file changes only with the rules.
fn operation_cases() -> String {
    use proptest::strategy::{Just, Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    use serde_json::json;

    let mut texts: Vec<String> = [
        "Assemble pump\nFit housing:\nPlace housing;\nTighten screws;\nCheck seal:\nInspect seal;\nPre-assembly~\nPack:\nPut in box;\n",
        "",
        "\n\n  \n",
        "Name only",
        "Name\nStep:\n",
        "Name\nSub;\n",
        "Name\nP~\nSub;\n",
        "Name\nStep\n",
        "Name\r\nA:\r\na;\rB:\rb;\r",
        "\u{feff}Name\u{feff}\n  A :\n\ta\t;\n",
        "Name\nA:\na;\nP~\nB:\nb;\nQ~\nC:\nc;\n",
        "Name\nA:\n:\n;\n~\n",
        "Name\nA:\na;\nA:\nb;\n",
        "Name\nA:\na;\na ;\n",
        "Name\nA:\nA;\n",
        "Name\nA:\na b;\nab;\n",
        "Name\nA:\na;\nP~\nP~\n",
        "Name\nA`:\na;\n",
        "Name\nA:\na~b;\n",
        "Name\nA::\na;;\nP~~\n",
        "Name\nA:\na;\nP~\nB:\nb;\nP~\n",
        "Name\nA:\na;\nP~\nB:\nb;\nQ~\n",
        "Name\nA\u{a0}:\na\u{85};\nB\u{2028}:\nb\u{200b};\n",
        "Name\nA:\nx\u{a0}y;\nxy;\n",
        "Name\nA:\na\u{1}b;\n",
        "Name\n漢字:\né;\n😀:\n😀;\n",
        "Name\nA:\nab;\nab\u{85};\n",
        "Name\nA:\na;\nProcess 2~\nB:\nb;\n",
        "Name\nA:\na;\nProcess 2~\nB:\nb;\nProcess 3~\nC:\nc;\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut runner = TestRunner::deterministic();
    // Lines of names from a small alphabet (so names repeat) with every marker, blank
    // and awkward whitespace, so each parse path and rule comes up.
    let name = || {
        proptest::prop_oneof![
            12 => "(A|B|C|a|a b|ab|é|D E)",
            1 => "(| |\u{a0}|\u{85}|~x|`|x\ty|\u{feff}A|A\u{2028})",
        ]
    };
    let line = (
        name(),
        proptest::prop_oneof![3 => Just(":"), 5 => Just(";"), 1 => Just("~"), 1 => Just("")],
    )
        .prop_map(|(n, m)| format!("{n}{m}"));
    let text =
        proptest::collection::vec(line, 0..12).prop_map(|ls| format!("Op\n{}", ls.join("\n")));
    for _ in 0..250 {
        texts.push(text.new_tree(&mut runner).unwrap().current());
    }
    let mut cases = Vec::new();
    for t in &texts {
        cases.push(match op::parse(t) {
            Ok(o) => json!({
                "kind": "text", "text": t, "operation": o,
                "printed": op::print(&o), "message": op::validate(&o).err(),
            }),
            Err(e) => json!({ "kind": "text", "text": t, "error_line": e.line }),
        });
    }
    let step = (name(), proptest::collection::vec(name(), 0..4))
        .prop_map(|(name, substeps)| op::Step { name, substeps });
    let process = (name(), proptest::collection::vec(step, 0..4))
        .prop_map(|(name, steps)| op::Process { name, steps });
    let operation = proptest::collection::vec(process, 0..4).prop_map(|processes| op::Operation {
        name: "Op".into(),
        processes,
    });
    for _ in 0..400 {
        let o = operation.new_tree(&mut runner).unwrap().current();
        let message = op::validate(&o).err();
        cases.push(json!({ "kind": "operation", "operation": o, "message": message }));
    }
    let mut out = serde_json::to_string_pretty(&cases).unwrap();
    out.push('\n');
    out
}

/// The field rules' answers on a corpus of awkward inputs, from the Rust rules the
/// server applies. The portal checks the same fields before sending (`web/src/lib/
/// validate.ts`); `validate.shared.test.ts` runs it on this corpus and must answer
/// the same, so the two cannot drift apart.
fn validation_cases() -> String {
    let long = |c: char, n: usize| std::iter::repeat_n(c, n).collect::<String>();
    let names = [
        "Anna",
        "Anna-Lena",
        "O'Brien",
        "Jean Paul",
        " Anna ",
        "",
        "   ",
        "-Anna",
        "Anna-",
        "Anna--Lena",
        "Anna  Lena",
        "Anna1",
        "Anna_Lena",
        "Ünal",
        "Łukasz",
        "李小龍",
        "Zoë",
        "e\u{301}",
        "\u{feff}Anna",
        "Anna\u{a0}",
        "\u{a0}Anna",
        "An\tna",
        "Ann\u{200b}a",
        "Ⅻ",
        "😀",
        "Anna\u{85}",
    ];
    let emails = [
        "a@b.co",
        " a@b.co ",
        "a@b",
        "@b.co",
        "a@.b.co",
        "a@b.co.",
        "a@b..co",
        "a@@b.co",
        "a b@c.de",
        "a@b.co\u{0}",
        "ä@ö.de",
        "\u{feff}a@b.co",
        "a@b.co\u{a0}",
        "a\u{85}@b.co",
        "",
        "a",
        &format!("{}@b.co", long('a', 249)),
        &format!("{}@b.co", long('a', 250)),
        &format!("{}@b.co", long('é', 125)),
        &format!("{}@b.co", long('a', 64)),
        &format!("{}@b.co", long('a', 65)),
        &format!("{}@b.co", long('é', 32)),
        &format!("{}@b.co", long('é', 33)),
        &format!("a@{}.co", long('b', 63)),
        &format!("a@{}.co", long('b', 64)),
    ];
    let passwords = [
        "",
        "short1",
        "1234567",
        "12345678",
        "abcdefgh",
        "abcdefg1",
        "pass word",
        "пароль12",
        "парольпароль",
        "１２３４５６７８",
        "ⅫⅫⅫⅫⅫⅫⅫⅫ",
        "😀😀😀😀😀😀😀😀",
        "e\u{301}e\u{301}e\u{301}e\u{301}",
        &long('a', 128),
        &format!("{}1", long('a', 127)),
        &format!("{}1", long('a', 128)),
        &long('é', 129),
    ];
    let numbers = [
        "+4915112345678",
        "004915112345678",
        "+49 151 1234-5678",
        "(0151) 12345678",
        "1234567",
        "12345678",
        "+1234567890123456",
        "+123456789012345",
        "++4915112345678",
        "+49a5112345678",
        " +4915112345678 ",
        "+49\u{a0}15112345678",
        "٠١٢٣٤٥٦٧٨",
        "",
        "+",
    ];
    let mut cases = Vec::new();
    let mut add = |rule: &str, value: &str, answer: Option<String>| {
        cases.push(serde_json::json!({ "rule": rule, "value": value, "message": answer }));
    };
    for v in names {
        add(
            "person_name",
            v,
            validate::person_name("First name", v).err(),
        );
    }
    for v in emails {
        add("email", v, validate::email(v).err().map(str::to_string));
    }
    for v in passwords {
        add(
            "password",
            v,
            validate::password(v).err().map(str::to_string),
        );
    }
    for v in numbers {
        add(
            "mobile_number",
            v,
            validate::mobile_number(v).err().map(str::to_string),
        );
    }
    // Each length limit at its boundary, counted in code points (not UTF-16 units or
    // bytes), on the value as sent (not trimmed).
    // (The operation text's is left out: no form field, and 50,000 characters a case.)
    for (name, max) in validate::LIMITS {
        if name.ends_with("_BYTES") || name == "TASK_DETAIL" {
            continue;
        }
        for v in [
            long('a', max),
            long('a', max + 1),
            long('😀', max),
            long('é', max + 1),
            format!(" {}", long('a', max)),
        ] {
            cases.push(serde_json::json!({
                "rule": "max_chars", "limit": name, "value": v,
                "message": validate::max_chars("Name", &v, max).err(),
            }));
        }
    }
    let mut out = serde_json::to_string_pretty(&cases).unwrap();
    out.push('\n');
    out
}

/// The `.ts` files under `dir`, as paths relative to it without the extension.
fn ts_files(dir: &std::path::Path, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            out.extend(ts_files(&e.path(), &format!("{prefix}{name}/")));
        } else if let Some(stem) = name.strip_suffix(".ts") {
            out.push(format!("{prefix}{stem}"));
        }
    }
    out
}

/// The longest lengths (`validate::LIMITS`) and each request body's bounded fields
/// (`api::v1::lengths`) as data, so the portal's forms stop where the server refuses.
fn field_limits_ts() -> String {
    let mut out = String::from(
        "// Generated by shared/tests/export_bindings.rs from shared/src/validate.rs and\n\
         // shared/src/api/v1/lengths.rs. Do not edit.\n\n\
         /** The longest value of each kind of free-text field, in characters (code points);\n \
         * `BODY_BYTES` in UTF-8 bytes. */\n\
         export const MAX_CHARS = {\n",
    );
    for (name, max) in validate::LIMITS {
        out.push_str(&format!("  {name}: {max},\n"));
    }
    out.push_str("} as const;\n\n");
    out.push_str(
        "/** Each request body's free-text fields (JSON paths, `*` for each element) and\n \
         * their longest length in characters. */\n\
         export const BODY_LIMITS = {\n",
    );
    for (body, limits) in gemba_shared::api::v1::lengths::all() {
        out.push_str(&format!("  {body}: {{\n"));
        for l in limits {
            out.push_str(&format!("    '{}': {},\n", l.path, l.max));
        }
        out.push_str("  },\n");
    }
    out.push_str("} as const;\n");
    out
}

/// The permission matrix (`Role::can`) as data, so the portal hides exactly what the
/// server refuses.
fn permissions_ts() -> String {
    let mut out = String::from(
        "// Generated by shared/tests/export_bindings.rs from shared/src/roles.rs. Do not edit.\n\
         import type { Role } from './Role';\n\n",
    );
    let names: Vec<String> = Permission::ALL.iter().map(|p| format!("'{p:?}'")).collect();
    out.push_str(&format!(
        "export const PERMISSIONS = [{}] as const;\n\n",
        names.join(", ")
    ));
    out.push_str("export type Permission = (typeof PERMISSIONS)[number];\n\n");
    out.push_str("/** What each role may do (`Role::can`). */\n");
    out.push_str("export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {\n");
    for r in Role::ALL {
        let held: Vec<String> = Permission::ALL
            .iter()
            .filter(|p| r.can(**p))
            .map(|p| format!("'{p:?}'"))
            .collect();
        out.push_str(&format!("  {}: [{}],\n", r.as_str(), held.join(", ")));
    }
    out.push_str("};\n");
    out
}
