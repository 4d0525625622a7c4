//! `chronolog eval ...`: a thin entry to the evaluation harness, which is
//! its own binary (`chronolog-eval`, crate `benches/eval`) so that the
//! shell ships without it. Kept because the command is where users (and
//! docs/evaluation.md's older runs) look for it; it runs the binary beside
//! this one, or the one `CHRONOLOG_EVAL_BIN` names, and passes its exit
//! status on.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

/// Runs `chronolog-eval` with `args`.
pub(crate) fn run(args: &[OsString]) -> Result<ExitCode> {
    let binary = match std::env::var_os("CHRONOLOG_EVAL_BIN") {
        Some(path) => PathBuf::from(path),
        None => std::env::current_exe()
            .context("cannot find this binary's directory")?
            .with_file_name(format!("chronolog-eval{}", std::env::consts::EXE_SUFFIX)),
    };
    if !binary.is_file() {
        bail!(
            "the evaluation harness is its own binary and {} is not built: \
             run `cargo build --release -p chronolog-eval` (or `cargo run --release -p \
             chronolog-eval -- locomo FILE`)",
            binary.display()
        );
    }
    let status = Command::new(&binary)
        .args(args)
        .status()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
