//! The checks of the OPC UA contract (`super`): endpoint URLs, node ids, metadata keys,
//! a device's bindings as a whole; and texts cut to a length.

use std::collections::BTreeSet;

use super::{
    MAX_BINDING_ENDPOINTS, MAX_BINDINGS, MAX_ENDPOINT_BYTES, MAX_KEY_BYTES, MAX_METADATA_BINDINGS,
    MAX_NODE_ID_BYTES, OpcuaBinding, OpcuaRole,
};

/// An endpoint URL: `opc.tcp://host[:port][/path]`, no login, no spaces or control
/// characters, at most [`MAX_ENDPOINT_BYTES`].
pub fn check_endpoint(url: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("The OPC UA endpoint {why}."));
    if url.len() > MAX_ENDPOINT_BYTES {
        return bad(&format!("must be at most {MAX_ENDPOINT_BYTES} characters"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad("must not contain spaces or control characters");
    }
    let Some(rest) = url
        .get(..10)
        .filter(|s| s.eq_ignore_ascii_case("opc.tcp://"))
        .map(|_| &url[10..])
    else {
        return bad("must start with opc.tcp://");
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return bad("must not carry a login (the device connects anonymously)");
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, p))
                if !h.is_empty()
                    && h.chars()
                        .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
                    && (p.is_empty() || p.starts_with(':')) =>
            {
                (h, p.strip_prefix(':'))
            }
            _ => return bad("has a malformed IPv6 host"),
        }
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty()
        || !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
    {
        return bad("must name a host");
    }
    if let Some(p) = port
        && !matches!(p.parse::<u16>(), Ok(1..))
    {
        return bad("has a port that is not 1 to 65535");
    }
    Ok(())
}

/// A node id as OPC UA writes it: an optional `ns=<0–65535>;`, then `i=<number>`,
/// `s=<text>`, `g=<GUID>` or `b=<base64>`; at most [`MAX_NODE_ID_BYTES`], no control
/// characters.
pub fn check_node_id(id: &str) -> Result<(), String> {
    let bad = || {
        Err(format!(
            "{:?} is not an OPC UA node id (such as i=85 or ns=2;s=Line1.PartNumber).",
            id.chars().take(80).collect::<String>()
        ))
    };
    if id.is_empty() || id.len() > MAX_NODE_ID_BYTES || id.chars().any(char::is_control) {
        return bad();
    }
    let rest = match id.strip_prefix("ns=") {
        Some(r) => match r.split_once(';') {
            Some((ns, rest))
                if ns.parse::<u16>().is_ok() && ns.bytes().all(|b| b.is_ascii_digit()) =>
            {
                rest
            }
            _ => return bad(),
        },
        None => id,
    };
    let ok = match rest.split_at_checked(2) {
        Some(("i=", n)) => n.parse::<u32>().is_ok() && n.bytes().all(|b| b.is_ascii_digit()),
        Some(("s=", s)) => !s.is_empty(),
        Some(("g=", g)) => {
            g.len() == 36
                && g.chars().enumerate().all(|(i, c)| {
                    if matches!(i, 8 | 13 | 18 | 23) {
                        c == '-'
                    } else {
                        c.is_ascii_hexdigit()
                    }
                })
        }
        Some(("b=", b)) => {
            !b.is_empty()
                && b.len() % 4 == 0
                && b.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        }
        _ => false,
    };
    if ok { Ok(()) } else { bad() }
}

/// A metadata key: 1 to [`MAX_KEY_BYTES`] bytes, no spaces at either end, no control
/// characters.
pub fn check_key(key: &str) -> Result<(), String> {
    if key.is_empty()
        || key.len() > MAX_KEY_BYTES
        || key.trim() != key
        || key.chars().any(char::is_control)
    {
        return Err(format!(
            "A metadata key is 1 to {MAX_KEY_BYTES} characters, without spaces at its ends."
        ));
    }
    Ok(())
}

/// A device's bindings as a whole: each well formed; at most [`MAX_BINDINGS`] over at
/// most [`MAX_BINDING_ENDPOINTS`] servers; none given twice; no metadata key given by
/// two nodes for the same camera and task; at most [`MAX_METADATA_BINDINGS`] keys a
/// camera.
pub fn check_bindings(bindings: &[OpcuaBinding]) -> Result<(), String> {
    if bindings.len() > MAX_BINDINGS {
        return Err(format!(
            "A device has at most {MAX_BINDINGS} OPC UA bindings."
        ));
    }
    let endpoints: BTreeSet<&str> = bindings.iter().map(|b| b.endpoint.as_str()).collect();
    if endpoints.len() > MAX_BINDING_ENDPOINTS {
        return Err(format!(
            "A device's OPC UA bindings name at most {MAX_BINDING_ENDPOINTS} servers."
        ));
    }
    for (i, b) in bindings.iter().enumerate() {
        b.check()?;
        let before = &bindings[..i];
        if before.contains(b) {
            return Err(format!(
                "Node {} of {} is bound to camera {} twice.",
                b.node_id, b.endpoint, b.camera
            ));
        }
        if let OpcuaRole::Metadata { key } = &b.role {
            if before.iter().any(|o| o.meets(b) && o.role == b.role) {
                return Err(format!(
                    "Two nodes give camera {}'s metadata key {key:?}.",
                    b.camera
                ));
            }
            let keys = bindings[..=i]
                .iter()
                .filter(|o| o.camera == b.camera && matches!(o.role, OpcuaRole::Metadata { .. }))
                .count();
            if keys > MAX_METADATA_BINDINGS {
                return Err(format!(
                    "Camera {} takes at most {MAX_METADATA_BINDINGS} metadata keys from OPC UA.",
                    b.camera
                ));
            }
        }
    }
    Ok(())
}

/// Cuts `text` to at most `max` bytes, on a character boundary.
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}
