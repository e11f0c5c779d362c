//! The client's address ([`ClientIp`]): the connection's peer, or, when that peer is a
//! configured reverse proxy (`trusted_proxies`), the last address in `X-Forwarded-For`
//! that is not one of those proxies. And the mail allowance kept per client and per
//! recipient address ([`ClientIp::may_mail`]).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;

use super::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Answer of a mail-sending call past its allowance (429).
pub const TOO_MANY_MAILS: &str = "Too many e-mails were requested. Please try again later.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

impl ClientIp {
    /// Takes one mail to each of `addresses` from this client's and their allowances
    /// ([`crate::limits::MailLimits`]); 429 once one is spent.
    pub fn may_mail(self, state: &AppState, addresses: &[&str]) -> ApiResult<()> {
        state
            .mail_limits
            .take(self.0, addresses)
            .map_err(|_| ApiError::TooMany(TOO_MANY_MAILS.into()))
    }
}

/// The client behind `peer`: `peer` itself unless it is one of `trusted`, in which case
/// the nearest `X-Forwarded-For` hop that is not trusted (proxies append the address
/// they received from, so the last entries are the ones the trusted proxies wrote).
pub fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let hops: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|h| h.trim().parse().ok())
        .collect();
    hops.into_iter()
        .rev()
        .find(|h| !trusted.contains(h))
        .unwrap_or(peer)
}

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Self> {
        // Served without connection info (never in `launch`): all such callers share one.
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
        Ok(ClientIp(client_address(
            peer,
            &parts.headers,
            &state.settings.trusted_proxies,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", v.parse().unwrap());
        }
        h
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let h = forwarded(&["1.2.3.4"]);
        assert_eq!(client_address(ip("9.9.9.9"), &h, &[]), ip("9.9.9.9"));
        assert_eq!(
            client_address(ip("9.9.9.9"), &h, &[ip("10.0.0.1")]),
            ip("9.9.9.9")
        );
    }

    #[test]
    fn behind_trusted_proxies_the_nearest_untrusted_hop_is_the_client() {
        let proxies = [ip("10.0.0.1"), ip("10.0.0.2")];
        // The client forged the first entry; the proxies appended the rest.
        let h = forwarded(&["6.6.6.6, 1.2.3.4", "10.0.0.2"]);
        assert_eq!(client_address(ip("10.0.0.1"), &h, &proxies), ip("1.2.3.4"));
        // Nothing forwarded, or nothing readable: the proxy itself.
        assert_eq!(
            client_address(ip("10.0.0.1"), &HeaderMap::new(), &proxies),
            ip("10.0.0.1")
        );
        let h = forwarded(&["garbage"]);
        assert_eq!(client_address(ip("10.0.0.1"), &h, &proxies), ip("10.0.0.1"));
    }
}
