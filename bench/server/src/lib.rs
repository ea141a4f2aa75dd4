//! Shared by the bench's two programs: flags and a small random source.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

/// `--name value` flags; a flag given twice keeps the last value.
pub struct Args(BTreeMap<String, String>);

impl Args {
    pub fn from_env() -> Self {
        let mut map = BTreeMap::new();
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let Some(name) = arg.strip_prefix("--") else {
                fail(&format!("unexpected argument {arg:?}; flags are --name value"));
            };
            let value = args.next().unwrap_or_else(|| fail(&format!("--{name} needs a value")));
            map.insert(name.to_owned(), value);
        }
        Args(map)
    }

    /// The flag's value, or `default` when it is absent; exits with a message when it does not parse.
    pub fn get<T: FromStr>(&self, name: &str, default: T) -> T {
        match self.0.get(name) {
            None => default,
            Some(v) => v.parse().unwrap_or_else(|_| fail(&format!("--{name}: cannot read {v:?}"))),
        }
    }

    pub fn text(&self, name: &str, default: &str) -> String {
        self.0.get(name).cloned().unwrap_or_else(|| default.to_owned())
    }
}

pub fn fail(message: &str) -> ! {
    eprintln!("{}: {message}", std::env::args().next().unwrap_or_default());
    std::process::exit(2)
}

/// splitmix64 on an atomic counter: shared by threads without a lock, good enough to pick faults.
pub struct Rng(AtomicU64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(AtomicU64::new(seed))
    }

    pub fn next(&self) -> u64 {
        let mut z = self.0.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in [0, 1).
    pub fn unit(&self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The value at quantile `q` of sorted samples.
pub fn quantile(sorted: &[u32], q: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}
