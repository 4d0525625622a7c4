//! The committed header `include/chronolog.h` must be what cbindgen makes
//! of `src/lib.rs` now: CI fails when someone changes the ABI and forgets
//! to regenerate it. `UPDATE_HEADER=1 cargo test -p chronolog-c --test
//! header` rewrites it.

use std::path::Path;

#[test]
fn the_committed_header_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(root.join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = root.join("include/chronolog.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("write header");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/chronolog.h is stale: run UPDATE_HEADER=1 cargo test -p chronolog-c --test header\n--- generated\n{generated}"
    );
}
