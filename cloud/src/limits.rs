//! Bounds on the calls that send e-mail to an address the caller names (issue 28):
//! each recipient address, and each client (its IP address), gets a number of such
//! mails an hour, refilled evenly (`governor`'s keyed GCRA limiters, in memory).
//!
//! A request counts whether or not the address belongs to an account, so the answer
//! (mail sent or 429) says nothing about which addresses are known. The limits are
//! per replica: with n replicas behind a balancer the bound is n times as high, still a
//! bound (docs/decisions.md, "Mail-sending calls are bounded").

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::{Deserialize, Serialize};

/// Mails an hour that calls may have sent, per recipient address and per client.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MailLimit {
    pub per_address_per_hour: u32,
    pub per_client_per_hour: u32,
}

impl Default for MailLimit {
    fn default() -> Self {
        MailLimit {
            per_address_per_hour: 5,
            per_client_per_hour: 30,
        }
    }
}

/// Which bound a refused request met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    Address,
    Client,
}

/// Keys past which the limiters drop the ones that are full again.
const PRUNE_ABOVE: usize = 10_000;

pub struct MailLimits {
    per_address: DefaultKeyedRateLimiter<String>,
    per_client: DefaultKeyedRateLimiter<IpAddr>,
}

fn quota(per_hour: u32) -> Quota {
    Quota::per_hour(NonZeroU32::new(per_hour.max(1)).expect("at least 1"))
}

impl MailLimits {
    pub fn new(limit: &MailLimit) -> MailLimits {
        MailLimits {
            per_address: RateLimiter::keyed(quota(limit.per_address_per_hour)),
            per_client: RateLimiter::keyed(quota(limit.per_client_per_hour)),
        }
    }

    /// Takes one mail from `client`'s and then from each of `addresses`' allowance;
    /// refused (taking nothing further) at the first that is spent. Addresses are
    /// compared in lower case.
    pub fn take(&self, client: IpAddr, addresses: &[&str]) -> Result<(), Limited> {
        self.prune();
        self.per_client
            .check_key(&client)
            .map_err(|_| Limited::Client)?;
        for a in addresses {
            self.per_address
                .check_key(&a.trim().to_lowercase())
                .map_err(|_| Limited::Address)?;
        }
        Ok(())
    }

    fn prune(&self) {
        if self.per_address.len() > PRUNE_ABOVE {
            self.per_address.retain_recent();
        }
        if self.per_client.len() > PRUNE_ABOVE {
            self.per_client.retain_recent();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    #[test]
    fn an_address_gets_its_allowance_in_any_case_of_letters() {
        let l = MailLimits::new(&MailLimit {
            per_address_per_hour: 2,
            per_client_per_hour: 100,
        });
        assert_eq!(l.take(ip(1), &["a@x.test"]), Ok(()));
        assert_eq!(l.take(ip(2), &["A@X.test "]), Ok(()));
        assert_eq!(l.take(ip(3), &["a@x.TEST"]), Err(Limited::Address));
        // Another address has its own.
        assert_eq!(l.take(ip(3), &["b@x.test"]), Ok(()));
    }

    #[test]
    fn a_client_gets_its_allowance_over_all_addresses() {
        let l = MailLimits::new(&MailLimit {
            per_address_per_hour: 100,
            per_client_per_hour: 3,
        });
        for n in 0..3 {
            assert_eq!(l.take(ip(1), &[&format!("{n}@x.test")]), Ok(()));
        }
        assert_eq!(l.take(ip(1), &["9@x.test"]), Err(Limited::Client));
        // A refusal for the client takes nothing from the address.
        assert_eq!(l.take(ip(2), &["9@x.test"]), Ok(()));
    }

    #[test]
    fn several_recipients_each_take_one() {
        let l = MailLimits::new(&MailLimit {
            per_address_per_hour: 1,
            per_client_per_hour: 100,
        });
        assert_eq!(l.take(ip(1), &["a@x.test", "b@x.test"]), Ok(()));
        assert_eq!(
            l.take(ip(1), &["c@x.test", "b@x.test"]),
            Err(Limited::Address)
        );
        assert_eq!(l.take(ip(1), &["a@x.test"]), Err(Limited::Address));
    }
}
