//! Broad phases against brute force: pair sets, queries, counters, and the same hash whichever runs.

mod agreement;
mod common;
mod hash;
mod queries;
mod stats;
