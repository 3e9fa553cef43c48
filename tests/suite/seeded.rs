//! Proptest configurations on a fixed seed, so CI runs the same cases every time (a failure
//! prints its case), with environment variables to hunt further by hand.

use proptest::test_runner::{Config, RngSeed};

/// `cases` cases from `seed`; `cases_var` (if set, e.g. `CCD_CASES=100000`) raises the count
/// and `seed_var` (e.g. `CCD_SEED=7`) changes the seed.
pub fn config(cases: u32, seed: u64, cases_var: Option<&str>, seed_var: Option<&str>) -> Config {
    let var = |name: Option<&str>| name.and_then(|n| std::env::var(n).ok()).and_then(|v| v.parse::<u64>().ok());
    let cases = var(cases_var).map_or(cases, |c| c as u32);
    let seed = var(seed_var).unwrap_or(seed);
    Config { cases, rng_seed: RngSeed::Fixed(seed), failure_persistence: None, ..Config::default() }
}

/// [`config`] with no variables.
pub fn fixed(cases: u32, seed: u64) -> Config {
    config(cases, seed, None, None)
}
