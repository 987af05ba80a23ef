//! Replays the fuzzing corpus (fuzz/corpus, kept minimized with `cargo fuzz cmin`) through
//! the same checks the fuzz targets run, so every input fuzzing ever found interesting is
//! tried again on each test run without needing cargo-fuzz. See RELIABILITY.md for a real
//! fuzzing run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../fuzz/fuzz_targets/decode_check.rs"]
mod decode_check;
#[path = "../fuzz/fuzz_targets/service_check.rs"]
mod service_check;

use std::path::Path;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus")
        .join(target);
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .collect();
    inputs.sort();
    assert!(inputs.len() > 100, "the {target} corpus is missing");
    inputs
}

#[test]
fn the_decode_corpus_gives_values_or_errors() {
    for input in corpus("decode") {
        decode_check::check(&input);
    }
}

#[test]
fn the_service_corpus_gets_answers_below_500() {
    for input in corpus("service") {
        service_check::check(&input);
    }
}
