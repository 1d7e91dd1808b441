//! End-to-end tests of the `grader` command: the real binary, run on the real kit.
//!
//! Each module covers one command. Reports are compared with reviewed snapshots in
//! `snapshots/`; run `cargo insta review` after an intended change.

mod attacks;
mod batch;
mod boundaries;
mod browser;
mod check;
mod ci;
mod class;
mod counts;
mod drafts;
mod editions;
mod errors;
mod every_lab;
mod fail_fast;
mod failures;
mod formats;
mod generated;
mod handout;
mod hints;
mod instructor_checks;
mod instructor_kit;
mod instructors;
mod kit_faults;
mod lab5;
mod lab6;
mod private_folder;
mod races;
mod refusals;
mod rehearse;
mod rehearse_sandbox;
mod release;
mod robustness;
mod second_lab;
mod student;
mod submission;
mod subs;
mod timeline;
mod util;
mod validate;
