//! Mosquitto's dynamic security plugin, kept in step with enrolments (`mqtt_dynsec`),
//! so that an external Mosquitto takes only enrolled devices, each confined to its own
//! topics, as the embedded broker does (`access.rs`).
//!
//! The cloud logs in as a user with the plugin's `admin` role (what `mosquitto_ctrl
//! dynsec init` makes) and sends commands on [`CONTROL`]: at start it gives itself a
//! role that may publish under `gemba/` (the admin role may only read) and makes sure
//! every enrolled device has its client; at enrolment it replaces the device's client;
//! at revocation, archiving and deletion it deletes it (the plugin then disconnects
//! it). Each device has a role of its own: it publishes only its status, cycles,
//! events and acknowledgements, subscribes only to its commands, its cycles'
//! acknowledgements and its `rtc`, under its own organisation and id; everything else
//! (`#`, another device, `$share/…`, the cloud's events) is refused by the plugin's
//! default access, which denies publishing and subscribing. Answers come on
//! [`RESPONSE`]; errors other than "already exists" and "not found" (expected when
//! making sure) are logged.
//!
//! Plain logic: these functions only build the commands and read the answers.

use gemba_shared::broker;
use gemba_shared::mqtt::v1::{self, Channel};
use serde_json::{Value, json};

/// Where commands go.
pub const CONTROL: &str = "$CONTROL/dynamic-security/v1";
/// Where the plugin answers.
pub const RESPONSE: &str = "$CONTROL/dynamic-security/v1/response";

/// The role the cloud gives itself.
const CLOUD_ROLE: &str = "gemba-cloud";

/// The channels a device publishes on, and those it subscribes to.
const SENDS: [Channel; 5] = [
    Channel::Status,
    Channel::Cycles,
    Channel::Events,
    Channel::CmdAck,
    Channel::RtcAnswer,
];
const READS: [Channel; 3] = [Channel::Cmd, Channel::CyclesAck, Channel::Rtc];

/// The payload of a list of commands.
pub fn payload(commands: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({ "commands": commands })).expect("JSON")
}

/// The cloud's own role (publish under `gemba/`), given to `cloud_user`.
pub fn cloud_role(cloud_user: &str) -> Vec<Value> {
    let prefix = v1::PREFIX.split('/').next().expect("a first level");
    vec![
        json!({"command": "createRole", "rolename": CLOUD_ROLE}),
        json!({"command": "addRoleACL", "rolename": CLOUD_ROLE,
            "acltype": "publishClientSend", "topic": format!("{prefix}/#"), "allow": true}),
        json!({"command": "addClientRole", "username": cloud_user, "rolename": CLOUD_ROLE}),
    ]
}

fn role(device: i64) -> String {
    format!("gemba-device-{device}")
}

/// Device `device` of `org` with signing key `key`: its role and its client (made
/// only if missing: an existing one stays, with its connection).
pub fn ensure(org: i64, device: i64, key: &[u8]) -> Vec<Value> {
    let (o, d) = (org.to_string(), device.to_string());
    let acl = |acltype: &str, c: Channel| json!({"acltype": acltype, "topic": v1::topic(&o, &d, c), "allow": true});
    let acls: Vec<Value> = SENDS
        .into_iter()
        .map(|c| acl("publishClientSend", c))
        .chain(READS.into_iter().map(|c| acl("subscribeLiteral", c)))
        .collect();
    vec![
        json!({"command": "createRole", "rolename": role(device), "acls": acls}),
        json!({
            "command": "createClient",
            "username": broker::username(device),
            "password": broker::password(key),
            "clientid": broker::client_id(device, key),
            "roles": [{"rolename": role(device)}],
        }),
    ]
}

/// Device `device` enrolled (again) with `key`: its old client, if any, goes (and with
/// it a connection under the old key), and the new one is made.
pub fn admit(org: i64, device: i64, key: &[u8]) -> Vec<Value> {
    let mut c = remove(device);
    c.extend(ensure(org, device, key));
    c
}

/// Device `device` no longer has credentials: its client and role go.
pub fn remove(device: i64) -> Vec<Value> {
    vec![
        json!({"command": "deleteClient", "username": broker::username(device)}),
        json!({"command": "deleteRole", "rolename": role(device)}),
    ]
}

/// The errors in an answer on [`RESPONSE`], without those that making sure expects.
pub fn errors(payload: &[u8]) -> Vec<String> {
    let Ok(v) = serde_json::from_slice::<Value>(payload) else {
        return vec!["an answer that is not JSON".into()];
    };
    let expected = |e: &str| {
        let e = e.to_ascii_lowercase();
        e.contains("already exists") || e.contains("not found")
    };
    v["responses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let e = r["error"].as_str()?;
            (!expected(e)).then(|| format!("{}: {e}", r["command"].as_str().unwrap_or("?")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_sends_and_reads_only_its_own_topics() {
        let c = ensure(5, 7, &[1; 32]);
        let topics: Vec<(&str, &str)> = c[0]["acls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["acltype"].as_str().unwrap(), a["topic"].as_str().unwrap()))
            .collect();
        assert_eq!(
            topics,
            [
                ("publishClientSend", "gemba/v1/5/7/status"),
                ("publishClientSend", "gemba/v1/5/7/cycles"),
                ("publishClientSend", "gemba/v1/5/7/events"),
                ("publishClientSend", "gemba/v1/5/7/cmd/ack"),
                ("publishClientSend", "gemba/v1/5/7/rtc/answer"),
                ("subscribeLiteral", "gemba/v1/5/7/cmd"),
                ("subscribeLiteral", "gemba/v1/5/7/cycles/ack"),
                ("subscribeLiteral", "gemba/v1/5/7/rtc"),
            ]
        );
        assert_eq!(c[1]["username"], "gemba-device-7");
        assert_eq!(c[1]["password"], broker::password(&[1; 32]));
        assert_eq!(c[1]["clientid"], broker::client_id(7, &[1; 32]));
        // Enrolling again replaces the client (the old key's connection goes).
        let a = admit(5, 7, &[2; 32]);
        assert_eq!(a[0]["command"], "deleteClient");
        assert_eq!(a[3]["password"], broker::password(&[2; 32]));
    }

    #[test]
    fn expected_errors_are_not_reported() {
        let answer = br#"{"responses":[
            {"command":"createRole","error":"Role already exists"},
            {"command":"deleteClient","error":"Client not found"},
            {"command":"createClient"},
            {"command":"addRoleACL","error":"Invalid/missing topic"}]}"#;
        assert_eq!(errors(answer), ["addRoleACL: Invalid/missing topic"]);
        assert_eq!(errors(b"nope").len(), 1);
    }
}
