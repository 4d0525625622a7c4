//! Runs the package's pytest suite (`tests/test_*.py`) against the
//! extension module cargo just built for this test run: the module is
//! copied beside the package's Python files in a temporary directory, so
//! no second (maturin) build is needed. `scripts/check-python-package.sh`
//! proves the other path, `pip install ./bindings/python`, on its own.
//!
//! The Python comes from `$CHRONOLOG_PYTHON`, else the workspace's
//! `.venv` (`scripts/install-python-deps.sh`); without one holding pytest
//! the test says so and passes, unless `CHRONOLOG_REQUIRE_PYTHON` is set
//! (CI sets it), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn python() -> Option<PathBuf> {
    let candidate = match std::env::var_os("CHRONOLOG_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => crate_dir().join("../../.venv/bin/python"),
    };
    let usable = Command::new(&candidate)
        .args(["-c", "import pytest"])
        .output()
        .is_ok_and(|out| out.status.success());
    if usable {
        return Some(candidate);
    }
    assert!(
        std::env::var_os("CHRONOLOG_REQUIRE_PYTHON").is_none(),
        "CHRONOLOG_REQUIRE_PYTHON is set but {} cannot import pytest \
         (run scripts/install-python-deps.sh)",
        candidate.display()
    );
    eprintln!(
        "skipped: no Python with pytest at {} (run scripts/install-python-deps.sh)",
        candidate.display()
    );
    None
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The extension module cargo built for this run, next to the test
/// binary (`target/<profile>/deps`).
fn extension_module() -> PathBuf {
    let exe = std::env::current_exe().expect("test path");
    let module = exe.parent().expect("deps dir").join("lib_chronolog.so");
    assert!(module.exists(), "{} was not built", module.display());
    module
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read package dir") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "__pycache__") {
                copy_dir(&path, &to.join(entry.file_name()));
            }
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy");
        }
    }
}

#[test]
#[cfg(target_os = "linux")]
fn the_python_package_passes_its_pytest_suite() {
    let Some(python) = python() else { return };
    let site = tempfile::tempdir().expect("temp");
    let package = site.path().join("chronolog");
    copy_dir(&crate_dir().join("python/chronolog"), &package);
    std::fs::copy(extension_module(), package.join("_chronolog.abi3.so")).expect("copy module");
    let out = Command::new(python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "error::pytest.PytestUnraisableExceptionWarning",
        ])
        .arg(crate_dir().join("tests"))
        .env("PYTHONPATH", site.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run pytest");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{report}");
    assert!(report.contains(" passed"), "{report}");
}
