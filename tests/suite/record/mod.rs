//! Recordings: record, replay and verify through the real binary.

mod replay;
