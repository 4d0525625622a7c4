//! The labelled extraction sets (`data/extraction/`) as a regression
//! guard: each language's dev split must keep what the rules read from
//! it. The floors are the figures of the rules that made them
//! (docs/evaluation.md, "Extraction"); a change that reads less, or reads
//! wrongly, fails here before it reaches a dataset run. The held-out
//! splits are only checked to read and run: their figures are reported,
//! never fitted.

use std::path::{Path, PathBuf};

use chronolog_eval::extraction::{Split, read_set, score, scoring_memory};

fn set(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/extraction")
        .join(name)
}

/// `(file, recall floor, precision floor)` on the dev split.
const FLOORS: [(&str, f64, f64); 3] = [
    ("en.txt", 0.99, 0.99),
    ("de.txt", 0.99, 0.99),
    ("zh.txt", 0.99, 0.99),
];

#[test]
fn every_languages_dev_split_keeps_what_the_rules_read() {
    let memory = scoring_memory().expect("memory");
    for (file, recall, precision) in FLOORS {
        let labelled = read_set(&set(file)).expect(file);
        assert!(labelled.lang.is_some(), "{file} names its language");
        let dev = score(&memory, &labelled, Split::Dev, false).expect(file);
        assert!(dev.cases >= 20, "{file}: {} dev cases", dev.cases);
        assert!(
            dev.recall() >= recall && dev.precision() >= precision,
            "{file}: dev recall {:.3} (floor {recall}), precision {:.3} (floor {precision}); \
             `chronolog-eval extraction {file} --split dev --explain` shows the cases",
            dev.recall(),
            dev.precision()
        );
        let held_out = score(&memory, &labelled, Split::HeldOut, false).expect(file);
        assert!(
            held_out.cases >= 20,
            "{file}: {} held-out cases",
            held_out.cases
        );
    }
}
