//! What the CLI's test files share: running the built `agentrisk` and
//! reading what it printed. Each test file uses only some of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `agentrisk` this package built with `args`.
pub fn agentrisk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentrisk")).args(args).output().expect("run agentrisk")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The conformance cases (`tests/fixtures/conformance/cases`).
pub fn cases() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases")
}
