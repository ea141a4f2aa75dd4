//! Limits on what one caller, and all callers together, can ask of the server: a per-caller
//! rate (GCRA, the `governor` crate), a cap on requests in flight, and a body size.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Put in a request's extensions when its caller is over its rate: the tool call is answered
/// with a retryable `rate_limited` error instead of being run (E2).
#[derive(Debug, Clone, Copy)]
pub struct Throttled {
    pub retry_after_ms: u64,
}

#[derive(Clone)]
pub struct Limits {
    rate: Option<Arc<DefaultKeyedRateLimiter<String>>>,
    in_flight: Arc<Semaphore>,
    pub body_limit: usize,
}

impl Limits {
    /// `per_second` requests per caller with bursts of `burst` (`per_second` 0: no rate limit);
    /// at most `max_in_flight` requests at once; bodies up to `body_limit` bytes.
    pub fn new(per_second: u32, burst: u32, max_in_flight: usize, body_limit: usize) -> Self {
        let rate = NonZeroU32::new(per_second).map(|rate| {
            let burst = NonZeroU32::new(burst.max(per_second)).unwrap_or(rate);
            let limiter = Arc::new(RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst)));
            // Forget callers that have been quiet, so the table does not grow without end.
            let weak = Arc::downgrade(&limiter);
            let Ok(runtime) = tokio::runtime::Handle::try_current() else { return limiter };
            runtime.spawn(async move {
                let mut every = tokio::time::interval(Duration::from_secs(60));
                loop {
                    every.tick().await;
                    let Some(limiter) = weak.upgrade() else { break };
                    limiter.retain_recent();
                    limiter.shrink_to_fit();
                }
            });
            limiter
        });
        Limits { rate, in_flight: Arc::new(Semaphore::new(max_in_flight.max(1))), body_limit }
    }

    /// A place among the requests in flight, or `None` when all are taken.
    pub fn enter(&self) -> Option<OwnedSemaphorePermit> {
        self.in_flight.clone().try_acquire_owned().ok()
    }

    /// Counts one request of `caller`; `Err(ms)` when it must wait that long.
    /// Whether callers have a rate to keep.
    pub fn rated(&self) -> bool {
        self.rate.is_some()
    }

    pub fn admit(&self, caller: &str) -> Result<(), u64> {
        let Some(rate) = &self.rate else { return Ok(()) };
        rate.check_key(&caller.to_owned()).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_caller_has_its_own_rate() {
        let limits = Limits::new(1, 2, 4, 10);
        assert!(limits.admit("a").is_ok());
        assert!(limits.admit("a").is_ok());
        let wait = limits.admit("a").unwrap_err();
        assert!(wait > 0 && wait <= 1000, "{wait}");
        assert!(limits.admit("b").is_ok());
        let permits: Vec<_> = (0..4).filter_map(|_| limits.enter()).collect();
        assert_eq!(permits.len(), 4);
        assert!(limits.enter().is_none());
    }
}
