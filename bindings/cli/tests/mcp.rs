//! `chronolog mcp` and `chronolog serve` tested with a real MCP client: the
//! official Python SDK (`tests/python/test_mcp.py` over standard input and
//! output, `tests/python/test_serve.py` over streamable HTTP, run under
//! pytest). The Python comes from
//! `$CHRONOLOG_PYTHON`, else the workspace's `.venv` that
//! `scripts/install-python-deps.sh` makes; without one holding `mcp` and
//! `pytest` the test says so and passes, unless `CHRONOLOG_REQUIRE_PYTHON`
//! is set (as CI sets it), where it fails.

use std::path::PathBuf;
use std::process::Command;

fn python() -> Option<PathBuf> {
    let candidate = match std::env::var_os("CHRONOLOG_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"),
    };
    let usable = Command::new(&candidate)
        .args(["-c", "import mcp, pytest"])
        .output()
        .is_ok_and(|out| out.status.success());
    if usable {
        return Some(candidate);
    }
    assert!(
        std::env::var_os("CHRONOLOG_REQUIRE_PYTHON").is_none(),
        "CHRONOLOG_REQUIRE_PYTHON is set but {} cannot import mcp and pytest \
         (run scripts/install-python-deps.sh)",
        candidate.display()
    );
    eprintln!(
        "skipped: no Python with mcp and pytest at {} (run scripts/install-python-deps.sh)",
        candidate.display()
    );
    None
}

#[test]
fn the_official_python_mcp_client_drives_the_server() {
    let Some(python) = python() else { return };
    let tests = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python");
    let out = Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(tests.join("test_mcp.py"))
        .arg(tests.join("test_serve.py"))
        .env("CHRONOLOG_BIN", env!("CARGO_BIN_EXE_chronolog"))
        .output()
        .expect("run pytest");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{report}");
    assert!(report.contains("12 passed"), "{report}");
}
