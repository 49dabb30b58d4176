//! Reading AgentLeak reports and re-scoring them.
//!
//! [`load_report`] turns bytes into a typed [`Report`] or a [`LoadError`]
//! that says where and what is wrong. [`rescore_report`] rebuilds the run
//! from the report's own inputs — its findings, level profiles, weights,
//! ρ_S and policy result — recomputes every headline number with `score`,
//! and lists each stored number that disagrees ("inconsistent report").
//! Stored numbers are never changed: callers show them, plus the flag.

mod load;
mod rescore;

pub use load::{load_report, LoadError};
pub use rescore::{rescore_report, Mismatch, Recomputed, Rescore};

use crate::model::Report;
