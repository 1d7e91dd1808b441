//! Generated scenarios: every rule sampled everywhere, not at a few clean points.
//!
//! A lab's plug-in draws a scenario from a seed ([`grader_lab::Plugin::generate`]):
//! settings within their ranges and off their defaults, times to the millisecond, every
//! class of answer, clock advances to just before, at and just after deadlines, held
//! calls released later. Its steps expect nothing. The reference solution is the oracle
//! ([`oracle`]): the draft runs on it in the lab's harness, and the plug-in turns each
//! step's record into the strongest expectations its judge checks, which makes an
//! ordinary scenario file ([`file`]). The code under test is then judged against that
//! file by the normal judge, with the hint of the rule the failed step checks.
//!
//! Seeds ([`seeds`]): seeds 1 to `lab.json`'s `generated.practice` are published for
//! practice (`grader check LAB --generated`); the seeds graded in CI are in the
//! instructors' `generated_seeds.json` and are added to every submission's grading. The
//! instructors' kit fills both in on the fly; the student edition and the Gradescope
//! bundle, which have no reference, get them as files filled in when they were made
//! ([`edition`]). A divergence is shrunk to a few steps ([`shrink`]) and written as a
//! scenario file that `grader check LAB --scenario FILE` replays.

pub mod edition;
pub mod file;
pub mod oracle;
pub mod seeds;
pub mod select;
pub mod shrink;

use std::path::PathBuf;

use crate::lab::Lab;
pub use oracle::{Filled, Oracle, Refused};
pub use seeds::Seeds;

/// The name of the generated scenario of `seed`: `gen_17`.
pub fn name(seed: u64) -> String {
    format!("gen_{seed}")
}

/// The seed a generated scenario's name stands for: `gen_17` is 17.
pub fn seed_of(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("gen_")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// What the file of a generated scenario says about itself.
pub fn envelope(lab: &Lab, seed: u64, hidden: bool, points: u32, category: &str) -> file::Envelope {
    file::Envelope {
        name: name(seed),
        title: format!("Seed {seed}, drawn at random: every step as the reference solution answers it"),
        category: category.to_owned(),
        points,
        hidden,
        description: format!(
            "Drawn from seed {seed} by {}'s generator: settings within their ranges and off their defaults, times to the millisecond, every kind of answer, deadlines met just before, at and just after. Each expectation is what the reference solution did at that step, so a failure shows the first step where the code under test does otherwise.",
            lab.manifest.name
        ),
        hint: "The code under test and the reference differ here: compare what was expected with what was observed, and find the rule of the handout that decides this step.".to_owned(),
    }
}

/// Where the grader keeps a lab's generated files, relative to the kit when it is
/// inside it: the scenarios filled in on the fly (`filled/`, which reports' provenance
/// hashes as it hashes every scenario file) and the shrunk divergences.
pub fn work_folder(lab: &Lab) -> PathBuf {
    let work = crate::build::work_dir(lab).join("generated");
    match work.strip_prefix(&lab.kit) {
        Ok(rest) => rest.to_path_buf(),
        Err(_) => work,
    }
}

/// Writes `text` at `path` (relative to the kit, or absolute) whole or not at all, so
/// that two graders filling in the same seed never read half a file.
pub fn write_file(
    lab: &Lab,
    path: &std::path::Path,
    text: &str,
) -> Result<PathBuf, crate::error::Error> {
    use crate::error::Error;
    let path = lab.kit.join(path);
    let dir = path.parent().unwrap_or(&lab.kit).to_path_buf();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let mut temp = tempfile::NamedTempFile::new_in(&dir)
        .map_err(|e| Error::io("create a file in", &dir, e))?;
    std::io::Write::write_all(&mut temp, text.as_bytes())
        .map_err(|e| Error::io("write", temp.path(), e))?;
    temp.persist(&path)
        .map_err(|e| Error::io("write", &path, e.error))?;
    Ok(path)
}

/// `f` on each of `items`, `jobs` at a time; the results in the order of `items`.
pub fn each<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    let result = f(item);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(result);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_seeds_go_both_ways() {
        assert_eq!(name(17), "gen_17");
        assert_eq!(seed_of("gen_17"), Some(17));
        for not in ["gen_", "gen_1a", "gen_17_shrunk", "cl_429", "gen_-1"] {
            assert_eq!(seed_of(not), None, "{not}");
        }
    }

    #[test]
    fn each_keeps_the_order_of_its_items() {
        let items: Vec<u64> = (0..50).collect();
        assert_eq!(
            each(&items, 4, |n| n * 2),
            (0..50).map(|n| n * 2).collect::<Vec<_>>()
        );
        assert!(each(&Vec::<u64>::new(), 4, |n| *n).is_empty());
    }
}
