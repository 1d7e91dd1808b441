//! What instructors use: which scenario catches which known bug ([`audit`], with the
//! [`mutants`]), checking whole labs without running code ([`validation`]), handouts
//! against the lab's data ([`handout`]), and the student edition ([`release`]).

pub mod audit;
pub mod cargo_files;
mod edition_check;
mod edition_readme;
pub mod handout;
pub mod mutant_checks;
pub mod mutants;
pub mod release;
pub mod validation;
