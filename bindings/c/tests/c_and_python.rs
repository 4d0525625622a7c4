//! The C ABI from the languages it is for: a C program compiled with the
//! system compiler against the committed header and the shared library,
//! and a Python script using ctypes. Both check results, not only
//! statuses, and exit non-zero on a failed check.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding the freshly built `libchronolog.so`: cargo builds
/// it for this test next to the test binary (`target/<profile>/deps`),
/// and copies it to `target/<profile>` only when the library is built on
/// its own, so the copy there may be stale.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test path");
    exe.parent().expect("deps dir").to_path_buf()
}

fn shared_library() -> PathBuf {
    let lib = library_dir().join(if cfg!(target_os = "macos") {
        "libchronolog.dylib"
    } else {
        "libchronolog.so"
    });
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The hashing embedder, so that these checks do not depend on the model.
fn no_model(command: &mut Command, home: &Path) {
    command.env("CHRONOLOG_MODEL_DIR", home.join("no-model"));
    command.env("CHRONOLOG_BGE_DIR", home.join("no-model"));
    command.env("CHRONOLOG_RERANKER_DIR", home.join("no-model"));
}

#[test]
fn a_c_program_uses_every_function() {
    let lib = shared_library();
    let tmp = tempfile::tempdir().expect("temp");
    let exe = tmp.path().join("smoke");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", "-o"])
        .arg(&exe)
        .arg(crate_dir().join("tests/c/smoke.c"))
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg("-L")
        .arg(lib.parent().expect("lib dir"))
        .arg("-lchronolog")
        .arg(format!("-Wl,-rpath,{}", library_dir().display()))
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "{compiler} failed");
    let mut run = Command::new(&exe);
    run.arg(tmp.path().join("db"));
    no_model(&mut run, tmp.path());
    let out = run.output().expect("run the C program");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all C checks passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_python_program_uses_it_through_ctypes() {
    let lib = shared_library();
    let tmp = tempfile::tempdir().expect("temp");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let mut run = Command::new(&python);
    run.arg(crate_dir().join("tests/python/test_chronolog.py"))
        .arg(&lib)
        .arg(tmp.path().join("db"));
    no_model(&mut run, tmp.path());
    let out = run.output().expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("all Python checks passed"),
        "{stdout}\n{stderr}"
    );
    // Without the model, the library said so, once.
    assert_eq!(
        stderr
            .matches("chronolog: warning: no sentence model is installed")
            .count(),
        1,
        "{stderr}"
    );
}
